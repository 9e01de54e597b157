"""Trace-validation rows of `pubsub-spec check`: runs of the reference exported as
abstract states and validated by tla-checker against the specs (properties/tracecheck.py), and
one mutant per spec that the delivery oracle alone does not catch but validation does.

Bounded by counts (seeds, runs), never by time: every workload is a deterministic function of
its seed."""

from __future__ import annotations

import time
from collections.abc import Callable

from pubsub_spec.properties.checks import NO_MISS, ONE_WAY, SINGLE, CheckResult
from pubsub_spec.properties.lbdd.trace_export import (
    generated_runs,
    record_run,
    subtraction_targets,
    validate_run,
)
from pubsub_spec.properties.thesis.trace_export import (
    HEqualsCutoff,
    TraceValidatedSystem,
    cutoff_race_trace,
    oracle_agrees,
    validate_cutoff,
)
from pubsub_spec.properties.thesis.tree_trace import (
    KeepSplitRecord,
    SkipLeafUpdate,
    TreeTraceSystem,
    oracle_agrees_tree,
    record_tree_run,
    tree_trace,
    validate_tree,
)
from pubsub_spec.reference.common.ops import Trace

CHECKER = "TLA+ trace"


def _cutoff_row(name: str, traces: list[Trace]) -> CheckResult:
    start = time.monotonic()
    records = skipped = 0
    problem = ""
    for t in traces:
        r = validate_cutoff(t)
        records += r.records
        skipped += r.skipped
        if r.failures and not problem:
            q, v = r.failures[0]
            problem = f"{t.generator} seed {t.seed} {q}: {v.detail}\n{v.trace}"
    ok = not problem and records > 0
    detail = problem or (
        f"{records} (subscription, event) records validated against CutoffRemap.tla"
        f" ({skipped} not mapped: values too fine for the spec's integer domain)"
        if records
        else "nothing mapped: the check proved nothing"
    )
    return CheckResult(
        SINGLE, CHECKER, name, records, "records", time.monotonic() - start, ok, detail
    )


def _cutoff_mutant_row(traces: list[Trace]) -> CheckResult:
    start = time.monotonic()
    detail = "NOT rejected: validation has no teeth"
    ok = False
    for t in traces:
        r = validate_cutoff(t, HEqualsCutoff)
        if r.failures:
            agree = oracle_agrees(t, HEqualsCutoff)
            ok = agree
            q, v = r.failures[0]
            detail = f"rejected on {t.generator} seed {t.seed} ({q}: {v.detail}); the oracle " + (
                "agrees with the run (only validation sees the slip)" if agree else "disagrees too"
            )
            break
    return CheckResult(
        SINGLE,
        CHECKER,
        "mutant h-equals-cutoff (state-only slip)",
        len(traces),
        "traces",
        time.monotonic() - start,
        ok,
        detail,
    )


def _lbdd_rows(runs: int) -> list[CheckResult]:
    start = time.monotonic()
    generated = generated_runs(17, runs)
    problem = ""
    steps = 0
    for i, run in enumerate(generated):
        v = validate_run(run)
        assert v is not None  # generated_runs keeps only runs that fit the map
        steps += v.states
        if not v.ok and not problem:
            problem = f"run {i}: {v.detail}\n{v.trace}"
    rows = [
        CheckResult(
            ONE_WAY,
            CHECKER,
            "LBDD: generated disseminations, views differing under failure",
            len(generated),
            "runs",
            time.monotonic() - start,
            not problem,
            problem or f"{len(generated)} runs ({steps} recorded states) are LBDD.tla behaviours",
        )
    ]
    start = time.monotonic()
    ok, detail = False, "NOT rejected: validation has no teeth"
    for i, run in enumerate(generated):
        views = {n: set(run.nodes) - {n} for n in run.nodes}
        mutant = record_run(run.source, run.nodes, run.nodes, views, subtraction_targets)
        once = all(mutant.received.get(n, 0) == 1 for n in run.nodes if n != run.source)
        v = validate_run(mutant)
        if v is not None and not v.ok:
            ok = once
            detail = f"rejected on run {i} ({v.detail}); every node received exactly once: " + (
                "the delivery check alone passes" if once else "no, the oracle fails too"
            )
            break
    rows.append(
        CheckResult(
            ONE_WAY,
            CHECKER,
            "mutant subtraction-distance (cost-only slip)",
            len(generated),
            "runs",
            time.monotonic() - start,
            ok,
            detail,
        )
    )
    return rows


def _tree_row(name: str, traces: list[Trace]) -> CheckResult:
    start = time.monotonic()
    mapped = states = 0
    problem = ""
    for t in traces:
        v = validate_tree(record_tree_run(t))
        if v is None:
            continue  # outside the map (properties/thesis/tree_trace.py): counted, not checked
        mapped += 1
        states += v.states
        if not v.ok and not problem:
            problem = f"{t.generator} seed {t.seed}: {v.detail}\n{v.trace}"
    ok = not problem and mapped > 0
    detail = problem or (
        f"{mapped} of {len(traces)} runs ({states} recorded states) are TwoDTree.tla behaviours"
        f" ({len(traces) - mapped} outside the map, e.g. twin messages in flight)"
        if mapped
        else "nothing mapped: the check proved nothing"
    )
    return CheckResult(
        NO_MISS, CHECKER, name, len(traces), "runs", time.monotonic() - start, ok, detail
    )


def _tree_mutant_row(mutant: type[TreeTraceSystem], name: str, traces: list[Trace]) -> CheckResult:
    start = time.monotonic()
    detail = "NOT rejected: validation has no teeth"
    ok = False
    for t in traces:
        v = validate_tree(record_tree_run(t, mutant))
        if v is not None and not v.ok:
            agree = oracle_agrees_tree(t, mutant)
            ok = agree
            detail = f"rejected on {t.generator} seed {t.seed} ({v.detail}); the oracle " + (
                "agrees with the run (only validation sees the slip)" if agree else "disagrees too"
            )
            break
    return CheckResult(
        NO_MISS, CHECKER, name, len(traces), "traces", time.monotonic() - start, ok, detail
    )


def thesis_rows(
    examples: int = 0, race_seeds: int = 3, conformance_seeds: int = 3, tree_seeds: int = 4
) -> list[CheckResult]:
    """The thesis system's rows: CutoffRemap on race traces and on the conformance `cutoff`
    generator, its mutant; TwoDTree on small generated workloads and split races, its two
    mutants. Bounded by seeds (`examples` is not used)."""
    from pubsub_spec.conformance.generators import GENERATORS

    races = [cutoff_race_trace(s) for s in range(race_seeds)]
    gen: Callable[[int, int, str], Trace] = GENERATORS["cutoff"]
    conf = [gen(1, i, "tiny") for i in range(conformance_seeds)]
    tree_races = [tree_trace(s, race=True) for s in range(tree_seeds)]
    return [
        _cutoff_row("CutoffRemap: cut-off race traces", races),
        _cutoff_row("CutoffRemap: conformance cutoff workloads", conf),
        _cutoff_mutant_row(races),
        _tree_row("TwoDTree: generated workloads", [tree_trace(s) for s in range(tree_seeds)]),
        _tree_row("TwoDTree: split races", tree_races),
        _tree_mutant_row(KeepSplitRecord, "mutant keep-split-record (cost-only slip)", tree_races),
        _tree_mutant_row(SkipLeafUpdate, "mutant skip-leaf-update (cost-only slip)", tree_races),
    ]


def lbdd_rows(examples: int = 0, runs: int = 30) -> list[CheckResult]:
    """LBDD on generated disseminations, and its mutant (bounded by `runs`)."""
    return _lbdd_rows(runs)


def run_trace_validation_checks(
    race_seeds: int = 3, conformance_seeds: int = 3, lbdd_runs: int = 30, tree_seeds: int = 4
) -> list[CheckResult]:
    """Every row: the thesis system's, then LBDD's."""
    return thesis_rows(0, race_seeds, conformance_seeds, tree_seeds) + lbdd_rows(0, lbdd_runs)


__all__ = ["TraceValidatedSystem", "run_trace_validation_checks"]
