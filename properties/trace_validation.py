"""Trace-validation rows of `pubsub-spec check`: runs of the reference exported as
abstract states and validated by tla-checker against the specs (properties/tracecheck.py), and
one mutant per spec that the delivery oracle alone does not catch but validation does: the
thesis (CutoffRemap, TwoDTree), LBDD, Kyra (KyraRouting), OctopiA (ScotRouting) and Tam's
Scribe trees (Scribe).

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
from pubsub_spec.properties.tracecheck import Validation
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


def _label(model: str) -> str:
    """The invariant label of a model in spec/manifest.json (the rows share it)."""
    from pubsub_spec.properties.tla import load_manifest

    return next(m.invariant for m in load_manifest() if m.name == model)


def _runs_row(
    label: str, name: str, runs: Callable[[], list[tuple[str, Validation | None]]], spec: str
) -> CheckResult:
    """One validation row over the verdicts `runs()` gives, each named by where it comes
    from (None: a run outside the map): every mapped run must validate."""
    start = time.monotonic()
    verdicts = runs()
    mapped = [(w, v) for w, v in verdicts if v is not None]
    states = sum(v.states for _, v in mapped)
    bad = next(((w, v) for w, v in mapped if not v.ok), None)
    ok = bad is None and bool(mapped)
    if bad is not None:
        detail = f"{bad[0]}: {bad[1].detail}\n{bad[1].trace}"
    elif mapped:
        detail = (
            f"{len(mapped)} of {len(verdicts)} runs ({states} recorded states) are {spec}"
            " behaviours"
        )
    else:
        detail = "nothing mapped: the check proved nothing"
    return CheckResult(
        label, CHECKER, name, len(verdicts), "runs", time.monotonic() - start, ok, detail
    )


def _mutant_row(
    label: str,
    name: str,
    wheres: list[str],
    verdicts: Callable[[str], list[Validation | None]],
    oracle: Callable[[str], bool],
) -> CheckResult:
    """A mutant's row: rejected by validation on some run (tried in the order of `wheres`)
    while the oracle agrees with the mutant's deliveries."""
    start = time.monotonic()
    ok, detail = False, "NOT rejected: validation has no teeth"
    for where in wheres:
        hit = next((v for v in verdicts(where) if v is not None and not v.ok), None)
        if hit is not None:
            agree = oracle(where)
            ok = agree
            detail = f"rejected on {where} ({hit.detail}); the oracle " + (
                "agrees with the run (only validation sees the slip)" if agree else "disagrees too"
            )
            break
    secs = time.monotonic() - start
    return CheckResult(label, CHECKER, name, len(wheres), "traces", secs, ok, detail)


def kyra_rows(examples: int = 0, seeds: int = 10) -> list[CheckResult]:
    """KyraRouting on small generated Kyra runs (events racing subscriptions' propagation),
    the same runs rebuilt from the kyra built-in's observation log (its own HAC cliques), and
    the flood-tree mutant. Bounded by `seeds` (`examples` is not used)."""
    from pubsub_spec.properties.kyra.trace_export import (
        FloodTreeKyra,
        kyra_trace,
        oracle_agrees_kyra,
        record_kyra_run,
        validate_kyra,
    )

    label = _label("MCKyraRouting")
    traces = {f"tv-kyra seed {s}": kyra_trace(s) for s in range(seeds)}

    def runs() -> list[tuple[str, Validation | None]]:
        return [(w, validate_kyra(record_kyra_run(t))) for w, t in traces.items()]

    def mutant(where: str) -> list[Validation | None]:
        return [validate_kyra(record_kyra_run(traces[where], FloodTreeKyra))]

    def observed() -> list[tuple[str, Validation | None]]:
        from pubsub_spec.conformance.observed import observed_run
        from pubsub_spec.properties.kyra.observed import validate_observed

        out: list[tuple[str, Validation | None]] = []
        for w, t in traces.items():
            got = validate_observed(observed_run("kyra", t))
            out += [(w, None)] if got is None else [(w, v) for _, v in got]
        return out

    return [
        _runs_row(label, "KyraRouting: generated runs", runs, "KyraRouting.tla"),
        _runs_row(label, "KyraRouting: runs from the observation log", observed, "KyraRouting.tla"),
        _mutant_row(
            label,
            "mutant flood-tree (cost-only slip)",
            list(traces),
            mutant,
            lambda w: oracle_agrees_kyra(traces[w], FloodTreeKyra),
        ),
    ]


def _octopia_rows(routing: str, seeds: int, label: str) -> list[CheckResult]:
    from pubsub_spec.properties.octopia.trace_export import (
        StcToAllScot,
        oracle_agrees_scot,
        record_scot_runs,
        scot_trace,
        validate_scot,
    )

    traces = {f"tv-scot-{routing} seed {s}": scot_trace(s, routing) for s in range(seeds)}

    def runs() -> list[tuple[str, Validation | None]]:
        return [
            (f"{w} {r.event}", validate_scot(r))
            for w, t in traces.items()
            for r in record_scot_runs(t, routing)
        ]

    def mutant(where: str) -> list[Validation | None]:
        return [validate_scot(r) for r in record_scot_runs(traces[where], routing, StcToAllScot)]

    def observed() -> list[tuple[str, Validation | None]]:
        from pubsub_spec.conformance.observed import observed_run
        from pubsub_spec.properties.octopia.observed import validate_observed

        out: list[tuple[str, Validation | None]] = []
        for w, t in traces.items():
            got = validate_observed(observed_run(f"octopia-{routing}", t))
            out += [(w, None)] if got is None else [(f"{w} {e}", v) for e, v in got]
        return out

    mode = routing.upper()
    return [
        _runs_row(label, f"ScotRouting: {mode} publications", runs, "ScotRouting.tla"),
        _runs_row(
            label,
            f"ScotRouting: {mode} publications from the observation log",
            observed,
            "ScotRouting.tla",
        ),
        _mutant_row(
            label,
            f"mutant stc-to-all, {mode} (cost-only slip)",
            list(traces),
            mutant,
            lambda w: oracle_agrees_scot(traces[w], routing, StcToAllScot),
        ),
    ]


def octopia_rows(examples: int = 0, seeds: int = 8) -> list[CheckResult]:
    """ScotRouting on the publications of small generated SNR and IDR runs (one run per
    publication), and the STC-to-all mutant. Bounded by `seeds` (`examples` is not used)."""
    label = _label("MCScotRoutingSnr")
    return _octopia_rows("snr", seeds, label) + _octopia_rows("idr", seeds, label)


def tam_rows(examples: int = 0, seeds: int = 6) -> list[CheckResult]:
    """Scribe on every group of small generated Tam runs (one run per group with a member),
    and the non-stop-join mutant. Bounded by `seeds` (`examples` is not used)."""
    from pubsub_spec.properties.tam.trace_export import (
        NonStopJoinTam,
        oracle_agrees_tam,
        record_tam_runs,
        tam_trace,
        validate_scribe,
    )

    label = _label("MCScribe")
    traces = {f"tv-tam seed {s}": tam_trace(s) for s in range(seeds)}

    def runs() -> list[tuple[str, Validation | None]]:
        return [
            (f"{w} group {r.group:x}", validate_scribe(r))
            for w, t in traces.items()
            for r in record_tam_runs(t)
        ]

    def mutant(where: str) -> list[Validation | None]:
        return [validate_scribe(r) for r in record_tam_runs(traces[where], NonStopJoinTam)]

    def observed() -> list[tuple[str, Validation | None]]:
        from pubsub_spec.conformance.observed import observed_run
        from pubsub_spec.properties.tam.observed import validate_observed

        out: list[tuple[str, Validation | None]] = []
        for w, t in traces.items():
            got = validate_observed(observed_run("tam", t))
            out += [(w, None)] if got is None else [(f"{w} key {k}", v) for k, v in got]
        return out

    return [
        _runs_row(label, "Scribe: the groups of generated Tam runs", runs, "Scribe.tla"),
        _runs_row(label, "Scribe: the groups from the observation log", observed, "Scribe.tla"),
        _mutant_row(
            label,
            "mutant non-stop-join (cost-only slip)",
            list(traces),
            mutant,
            lambda w: oracle_agrees_tam(traces[w], NonStopJoinTam),
        ),
    ]


def run_trace_validation_checks(
    race_seeds: int = 3,
    conformance_seeds: int = 3,
    lbdd_runs: int = 30,
    tree_seeds: int = 4,
    family_seeds: int | None = None,
) -> list[CheckResult]:
    """Every row: the thesis system's, LBDD's, then Kyra's, OctopiA's and Tam's (each with
    `family_seeds` seeds when given, else its own default)."""
    extra = {} if family_seeds is None else {"seeds": family_seeds}
    return (
        thesis_rows(0, race_seeds, conformance_seeds, tree_seeds)
        + lbdd_rows(0, lbdd_runs)
        + kyra_rows(0, **extra)
        + octopia_rows(0, **extra)
        + tam_rows(0, **extra)
    )


__all__ = ["TraceValidatedSystem", "run_trace_validation_checks"]
