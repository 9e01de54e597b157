"""Deliberately broken handlers for the step runner's own tests and demonstrations
(`python -m pubsub_spec.conformance.steps.program --mutant NAME`): each changes one rule of
one handler, and `pubsub-spec verify --steps` must name that handler and the first field that
differs (tests/test_steps_runner.py). The project's mutants of the thesis system
(properties/thesis/mutants.py) are scored against the vectors by scripts/step_teeth.py."""

from __future__ import annotations

from collections.abc import Callable

from pubsub_spec.conformance.steps.base import StepSystem
from pubsub_spec.conformance.steps.lbdd import LbddSteps
from pubsub_spec.conformance.steps.thesis import ThesisSteps
from pubsub_spec.reference.lbdd.algorithms import LocalBuckets, slice_bounds
from pubsub_spec.reference.thesis.messages import LeafUpdate
from pubsub_spec.reference.thesis.substrate import Peer
from pubsub_spec.reference.thesis.system import TwoDTreeSystem


class LeafUpdateNotForwarded(TwoDTreeSystem):
    """A LeafNodeUpdateMessage applied but not forwarded towards the root (thesis Program 3.1,
    line 65): the ancestors' LeafNodeRoutingTables stay coarse."""

    def _on_leaf_update(self, peer: Peer, msg: LeafUpdate) -> None:
        node = self._node(peer, msg.qattr, msg.target)
        if node is None or node.lnrt is None:
            return
        node.lnrt.apply_split(msg.split)
        if self.config.lnrt_max_records is not None:
            node.lnrt.coarsen(self.config.lnrt_max_records)


def _one_more(local: LocalBuckets) -> tuple[str, ...]:
    """Algorithm 2 with an inclusive upper bound: slices overlap (LBDD §3.3)."""
    if not local.higher:
        return ()
    target = local.higher[min(local.higher)]
    lo, hi = slice_bounds(local.rank, local.size, len(target))
    return target[lo : hi + 1]


MUTANTS: dict[str, Callable[[], StepSystem]] = {
    "thesis-leaf-update-not-forwarded": lambda: ThesisSteps(LeafUpdateNotForwarded),
    "lbdd-overlapping-slices": lambda: LbddSteps(select=_one_more),
}
