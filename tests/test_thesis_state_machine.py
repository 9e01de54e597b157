"""The reference under the Hypothesis state machine, and mutants it must reject."""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.properties.thesis.state_machine import ReferenceMachine
from pubsub_spec.reference.thesis.messages import ProbeSub
from pubsub_spec.reference.thesis.substrate import Peer
from pubsub_spec.reference.thesis.system import TwoDTreeSystem


def test_reference_keeps_the_invariants_after_every_step() -> None:
    run_state_machine_as_test(
        ReferenceMachine, settings=settings(max_examples=150, stateful_step_count=30)
    )


@pytest.mark.parametrize(
    ("mutant", "message"),
    [
        ("no-depth-cap", "max_depth"),
        # a merged leaf loses points, or probes for it circulate for ever (ITEM_BUDGET)
        ("merge-below-capacity", "disappeared|did not quiesce"),
        ("closed-segments", "duplicate"),
    ],
)
def test_state_machine_rejects_mutant(mutant: str, message: str) -> None:
    machine = type(f"Mutant_{mutant}", (ReferenceMachine,), {"system_class": MUTANTS[mutant]})
    with pytest.raises(AssertionError, match=message):
        run_state_machine_as_test(
            machine,
            settings=settings(max_examples=300, stateful_step_count=25, phases=[Phase.generate]),
        )



class _Loop(TwoDTreeSystem):
    """Each subscription probe is handled, then sent again to the same peer: the messages of
    a subscribe never stop."""

    def _on_probe_sub(self, peer: Peer, msg: ProbeSub) -> None:
        super()._on_probe_sub(peer, msg)
        self.send_direct(peer, peer.pid, msg)


def test_a_run_that_never_quiesces_is_rejected_by_count() -> None:
    """The machine bounds each run by engine items (ITEM_BUDGET), not by time: a system whose
    messages circulate for ever fails with "did not quiesce"."""
    machine = type("Looping", (ReferenceMachine,), {"system_class": _Loop})
    with pytest.raises(AssertionError, match="did not quiesce"):
        run_state_machine_as_test(
            machine,
            settings=settings(max_examples=20, stateful_step_count=10, phases=[Phase.generate]),
        )
