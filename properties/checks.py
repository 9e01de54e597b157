"""Every invariant check in one place, for `pubsub-spec check`: Hypothesis against the
reference (here), z3 lemmas (properties.lemmas) and TLA+ models (properties.tla), each as rows of
one table — invariant, checker, what was explored, time, verdict. Mutant rows say whether the
check rejected its deliberately broken variant (that is the verdict that must hold for them)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from hypothesis import HealthCheck, Phase, Verbosity, given, settings

from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.properties.thesis.strategies import race_trace, workloads
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


@dataclass(frozen=True)
class CheckResult:
    invariant: str
    checker: str
    name: str
    explored: int
    unit: str
    seconds: float
    ok: bool
    detail: str = ""


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


def _search(examples: int) -> settings:
    """Derandomized, quiet, no shrinking: a check reports the first failure it meets."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )


def _hypothesis_run(
    what: str, cls: type[TwoDTreeSystem], examples: int, shape: Callable[[Trace], Trace]
) -> tuple[int, str | None]:
    count = 0
    failure: list[str] = []

    @_search(examples)
    @given(workloads())
    def run(trace: Trace) -> None:
        nonlocal count
        count += 1
        try:
            _check(shape(trace), cls, what)
        except Violation as e:
            failure.append(str(e))
            raise

    with contextlib.suppress(Violation):
        run()
    return count, (failure[0] if failure else None)


def _race_run(what: str, cls: type[TwoDTreeSystem], seeds: int) -> tuple[int, str | None]:
    for seed in range(seeds):
        try:
            _check(race_trace(seed), cls, what)
        except Violation as e:
            return seed + 1, f"race_trace({seed}): {e}"
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


def _lbdd_run(mutant: bool, examples: int) -> tuple[int, str | None]:
    from pubsub_spec.properties.lbdd.checks import address_sets, one_way_violation

    count = 0
    failure: list[str] = []

    @_search(examples)
    @given(address_sets)
    def run(addrs: list[str]) -> None:
        nonlocal count
        count += 1
        problem = one_way_violation(addrs, mutant)
        if problem:
            failure.append(problem)
            raise Violation(problem)

    with contextlib.suppress(Violation):
        run()
    return count, (failure[0] if failure else None)


def run_hypothesis_checks(examples: int = 200, race_seeds: int = 150) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for broken in (False, True):
        start = time.monotonic()
        n, failure = _lbdd_run(broken, examples)
        name = "mutant forwarding-within-bucket" if broken else "LBDD trees on random addresses"
        ok = (failure is not None) if broken else failure is None
        detail = (
            (f"rejected: {failure}" if failure else "NOT rejected")
            if broken
            else (failure or "holds")
        )
        rows.append(
            CheckResult(
                ONE_WAY, "Hypothesis", name, n, "examples", time.monotonic() - start, ok, detail
            )
        )
    for invariant, name, mutant, runner in PLAN:
        cls = MUTANTS[mutant] if mutant else TwoDTreeSystem
        start = time.monotonic()
        if runner == "race":
            n, failure = _race_run(invariant, cls, race_seeds)
            unit = "traces"
        else:
            shape = {"hyp": _same, "hyp-cut": _with_cutoff, "hyp-lbdd": _with_lbdd}[runner]
            n, failure = _hypothesis_run(invariant, cls, examples, shape)
            unit = "examples"
        secs = time.monotonic() - start
        if mutant is None:
            ok, detail = failure is None, failure or "holds"
        else:
            ok = failure is not None
            detail = f"rejected: {failure}" if failure else "NOT rejected: the check has no teeth"
        rows.append(CheckResult(invariant, "Hypothesis", name, n, unit, secs, ok, detail))
    return rows
