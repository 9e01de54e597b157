"""The reference under the Hypothesis state machine, and mutants it must reject."""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.properties.thesis.state_machine import ReferenceMachine


def test_reference_keeps_the_invariants_after_every_step() -> None:
    run_state_machine_as_test(
        ReferenceMachine, settings=settings(max_examples=150, stateful_step_count=30)
    )


@pytest.mark.parametrize(
    ("mutant", "message"),
    [
        ("no-depth-cap", "max_depth"),
        ("merge-below-capacity", "disappeared"),
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
