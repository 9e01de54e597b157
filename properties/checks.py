"""The thesis system's Hypothesis rows of `pubsub-spec check` (properties/thesis/contract.py):
the reference against the oracle on generated workloads and split races, and each mutant of
properties/thesis/mutants.py rejected; also the names of the four design invariants that order
the rows of every checker. The row, its verdict and the search are properties/verdict.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.properties.thesis.strategies import race_trace, workloads
from pubsub_spec.properties.verdict import CheckResult, Found, first_failure, timed_row
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.thesis.config import config_of, with_config
from pubsub_spec.reference.thesis.lnrt import is_partition
from pubsub_spec.reference.thesis.run import run_and_compare
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

NO_MISS = "no missed matches under growth-only trees"
SINGLE = "single delivery with cut-off remapping"
DEPTH = "bounded tree depth"
ONE_WAY = "one-way dissemination"
INVARIANTS = (ONE_WAY, NO_MISS, SINGLE, DEPTH)

__all__ = ["DEPTH", "INVARIANTS", "NO_MISS", "ONE_WAY", "SINGLE", "CheckResult", "rows"]


class Violation(AssertionError):
    pass


def _check(trace: Trace, cls: type[TwoDTreeSystem], what: str) -> None:
    result, c = run_and_compare(trace, system_class=cls)
    if what == NO_MISS and c.missed:
        raise Violation(f"{c.summary()}; first missed {c.missed[0]}")
    if what in (SINGLE, ONE_WAY) and (c.duplicate or c.spurious or c.missed):
        raise Violation(c.summary())
    bound = config_of(trace).max_depth
    if what == DEPTH and result.system.metrics.max_depth > bound:
        raise Violation(f"tree depth {result.system.metrics.max_depth} > {bound}")
    if what == NO_MISS:
        for node in result.system.tree_nodes():
            if node.lnrt is not None and not is_partition(node.bits, node.lnrt):
                raise Violation(f"routing table of {node.ident} is not a partition")


def _violation(trace: Trace, cls: type[TwoDTreeSystem], what: str) -> str | None:
    try:
        _check(trace, cls, what)
    except Violation as e:
        return str(e)
    return None


def _hypothesis_run(
    what: str, cls: type[TwoDTreeSystem], examples: int, shape: Callable[[Trace], Trace]
) -> Found:
    return first_failure(workloads(), lambda t: _violation(shape(t), cls, what), examples)


def _race_run(what: str, cls: type[TwoDTreeSystem], seeds: int) -> Found:
    for seed in range(seeds):
        problem = _violation(race_trace(seed), cls, what)
        if problem:
            return seed + 1, f"race_trace({seed}): {problem}"
    return seeds, None


def _with_cutoff(t: Trace) -> Trace:
    from pubsub_spec.properties.thesis.strategies import CUTOFF, CUTOFF_H

    return with_config(t, replace(config_of(t), cutoff=CUTOFF, cutoff_h=CUTOFF_H))


def _with_lbdd(t: Trace) -> Trace:
    return with_config(t, replace(config_of(t), delivery="lbdd"))


def _same(t: Trace) -> Trace:
    return t


# invariant, check name, mutant (None = the reference), runner
PLAN: list[tuple[str, str, str | None, str]] = [
    (NO_MISS, "generated workloads", None, "hyp"),
    (NO_MISS, "split races", None, "race"),
    (NO_MISS, "mutant thesis-split (erratum E4)", "thesis-split", "race"),
    (NO_MISS, "mutant no-jump-back", "no-jump-back", "race"),
    (SINGLE, "workloads with cut-off, boundary values", None, "hyp-cut"),
    (SINGLE, "mutant closed-segments (erratum E3)", "closed-segments", "hyp-cut"),
    (SINGLE, "mutant no-seen-inheritance", "no-seen-inheritance", "race"),
    (SINGLE, "mutant no-dedup", "no-dedup", "race"),
    (DEPTH, "generated workloads", None, "hyp"),
    (DEPTH, "mutant no-depth-cap", "no-depth-cap", "hyp"),
    (ONE_WAY, "core system with --delivery lbdd", None, "hyp-lbdd"),
]


def rows(examples: int = 200, race_seeds: int = 150) -> list[CheckResult]:
    """The thesis system's rows, in PLAN order."""
    out: list[CheckResult] = []
    for invariant, name, mutant, runner in PLAN:
        cls = MUTANTS[mutant] if mutant else TwoDTreeSystem
        run: Callable[[], Found]
        if runner == "race":
            run, unit = partial(_race_run, invariant, cls, race_seeds), "traces"
        else:
            shape = {"hyp": _same, "hyp-cut": _with_cutoff, "hyp-lbdd": _with_lbdd}[runner]
            run, unit = partial(_hypothesis_run, invariant, cls, examples, shape), "examples"
        out.append(timed_row(invariant, "Hypothesis", name, unit, run, mutant is not None))
    return out
