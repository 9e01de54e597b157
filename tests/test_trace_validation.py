"""Trace validation: reference runs exported as abstract states are behaviours of
spec/thesis/CutoffRemap.tla and spec/lbdd/LBDD.tla; each generated-module invariant has teeth;
a reference mutant the oracle alone misses is rejected by validation."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pubsub_spec.properties.lbdd.trace_export import (
    LbddRun,
    abstract_digests,
    generated_runs,
    record_run,
    subtraction_targets,
    validate_run,
)
from pubsub_spec.properties.liveness import TREE_LIVENESS_MODELS, LiveModel, run_live
from pubsub_spec.properties.thesis.trace_export import (
    HEqualsCutoff,
    RawRecord,
    TraceValidatedSystem,
    cutoff_race_trace,
    oracle_agrees,
    validate_cutoff,
)
from pubsub_spec.properties.thesis.tree_trace import (
    KeepSplitRecord,
    SkipLeafUpdate,
    TreeTraceSystem,
    cell_of,
    oracle_agrees_tree,
    record_tree_run,
    region_of,
    tree_trace,
    validate_tree,
)
from pubsub_spec.properties.tla import tla_binary
from pubsub_spec.properties.trace_validation import run_trace_validation_checks
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

try:
    tla_binary()
except FileNotFoundError:  # pragma: no cover - CI installs it (scripts/setup.sh)
    pytest.skip("tla-checker not installed", allow_module_level=True)


def test_hook_does_not_change_the_run() -> None:
    """The observing subclass draws nothing and sends nothing: same log, same deliveries."""
    t = cutoff_race_trace(4)
    a = run_trace(t, system_class=TwoDTreeSystem)
    b = run_trace(t, system_class=TraceValidatedSystem)
    assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries


def test_cutoff_race_traces_validate() -> None:
    for seed in (0, 1):
        r = validate_cutoff(cutoff_race_trace(seed))
        assert r.records > 100 and not r.failures, r.failures


def test_h_equals_cutoff_is_caught_by_validation_only() -> None:
    t = cutoff_race_trace(0)
    assert oracle_agrees(t, HEqualsCutoff)  # the oracle alone misses the slip
    r = validate_cutoff(t, HEqualsCutoff)
    assert r.failures and r.failures[0][1].violated == "TVInitOK"


def _last_open(r: RawRecord) -> RawRecord:
    a, b, _ = r.segs[-1]
    return replace(r, segs=(*r.segs[:-1], (a, b, False)))


def _one_more(r: RawRecord) -> RawRecord:
    return replace(r, leaves=tuple((s, n + 1) for s, n in r.leaves))


def _not_examined(r: RawRecord) -> RawRecord:
    return replace(r, leaves=())


@pytest.mark.parametrize(
    ("tamper", "invariant"),
    [(_last_open, "TVSegments"), (_one_more, "TVDeliveries"), (_not_examined, "TVFound")],
)
def test_each_validation_invariant_has_teeth(tamper: object, invariant: str) -> None:
    r = validate_cutoff(cutoff_race_trace(0), tamper=tamper)  # type: ignore[arg-type]
    assert r.failures and r.failures[0][1].violated == invariant


def test_lbdd_generated_runs_validate_races_included() -> None:
    runs = generated_runs(3, 12)
    assert any(len(r.alive) < len(r.nodes) for r in runs)  # a failure in the middle
    for run in runs:
        v = validate_run(run)
        assert v is not None and v.ok, v


def test_lbdd_subtraction_distance_is_caught_by_validation_only() -> None:
    rejected = 0
    for run in generated_runs(5, 12):
        views = {n: set(run.nodes) - {n} for n in run.nodes}
        m = record_run(run.source, run.nodes, run.nodes, views, subtraction_targets)
        assert all(m.received.get(n) == 1 for n in run.nodes if n != run.source)
        v = validate_run(m)
        assert v is not None
        rejected += not v.ok
    assert rejected >= 3


def test_lbdd_recorded_step_outside_next_is_rejected() -> None:
    """A forward whose targets are not the spec's slice, and a view that lost a live node."""
    run = next(r for r in generated_runs(7, 20) if len(r.nodes) >= 4 and len(r.forwards) >= 2)
    me, view, out = run.forwards[0]
    extra = next(n for n in run.nodes if n not in out and n != me)
    bad = LbddRun(
        run.source,
        run.nodes,
        run.alive,
        ((me, view, (*out, extra)), *run.forwards[1:]),
        run.received,
    )
    v = validate_run(bad)
    assert v is not None and not v.ok and v.status == "deadlock"
    me2, view2, out2 = run.forwards[1]
    live = sorted((run.alive & view2) - {run.source, me2})
    lost = LbddRun(
        run.source,
        run.nodes,
        run.alive,
        (run.forwards[0], (me2, view2 - {live[-1]}, out2), *run.forwards[2:]),
        run.received,
    )
    v2 = validate_run(lost)
    assert v2 is not None and not v2.ok


def test_abstraction_refuses_runs_that_do_not_fit() -> None:
    many = [f"10.1.{i}.{i + 1}" for i in range(20)]
    assert abstract_digests(many[0], many) is None


def test_check_rows_pass() -> None:
    rows = run_trace_validation_checks(
        race_seeds=1, conformance_seeds=2, lbdd_runs=8, tree_seeds=1, family_seeds=2
    )
    assert len(rows) == 21 and all(r.ok for r in rows), [r.detail for r in rows if not r.ok]
    assert all(r.explored > 0 for r in rows)


# -- TwoDTree (properties/thesis/tree_trace.py) ---------------------------------------------


def test_tree_hook_does_not_change_the_run() -> None:
    for t in (tree_trace(0), tree_trace(1, race=True)):
        a = run_trace(t, system_class=TwoDTreeSystem)
        b = run_trace(t, system_class=TreeTraceSystem)
        assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries


def test_tree_map_geometry_by_hand() -> None:
    """Cells interleave x and y bits, x first (thesis §3.2.1); the target area of v is
    x <= v <= y (§3.2, Fig. 3.1). Grid 4 x 4: (1, 2) = x 01, y 10 -> 0110."""
    assert cell_of(1, 2) == 0b0110 and cell_of(3, 3) == 0b1111 and cell_of(2, 1) == 0b1001
    assert region_of(0) == {cell_of(0, y) for y in range(4)}
    assert len(region_of(1)) == 2 * 3 and cell_of(1, 1) in region_of(1)
    assert cell_of(2, 1) not in region_of(1)


def test_tree_generated_runs_and_split_races_validate() -> None:
    races = [record_tree_run(tree_trace(s, race=True)) for s in (2, 3)]
    plain = [record_tree_run(tree_trace(3))]
    for run in [*plain, *races]:
        v = validate_tree(run)
        assert v is not None and v.ok, (run.trace.generator, run.trace.seed, v)
    # the races reach what they are for: held probes, jump-backs, lost LeafUpdates
    m = [run_trace(r.trace, system_class=TwoDTreeSystem).system.metrics for r in races]
    assert sum(x.held for x in m) > 0 and sum(x.jump_backs for x in m) > 0
    assert sum(x.leaf_updates_lost for x in m) > 0


def test_tree_twin_messages_validate() -> None:
    """Twin probes (sibling nodes' probes jumping back to one node; the spec's messages form a
    set): the first copy received is the spec's receipt, the other is discarded by the dedup
    without changing the abstract state."""
    t = tree_trace(1)
    m = run_trace(t, system_class=TwoDTreeSystem).system.metrics
    assert m.jump_backs > 0 and m.dedup_discards > 0
    run = record_tree_run(t)
    assert not run.problem
    v = validate_tree(run)
    assert v is not None and v.ok, v


@pytest.mark.parametrize("mutant", [KeepSplitRecord, SkipLeafUpdate])
def test_tree_mutants_are_caught_by_validation_only(mutant: type[TreeTraceSystem]) -> None:
    t = tree_trace(0, race=True)
    assert oracle_agrees_tree(t, mutant)  # the delivery oracle alone misses the slip
    v = validate_tree(record_tree_run(t, mutant))
    assert v is not None and not v.ok and v.status == "deadlock", v


def test_tree_recorded_states_have_teeth() -> None:
    """A recorded state dropped, or a state altered (a delivery count changed), is rejected."""
    run = record_tree_run(tree_trace(0, race=True))
    skip = replace(run, states=[*run.states[:10], *run.states[11:]])
    v = validate_tree(skip)
    assert v is not None and not v.ok
    last = dict(run.states[-1])
    counts = last["dcount"]
    assert isinstance(counts, frozenset) and counts
    first = min(counts, key=str)
    assert isinstance(first, tuple)
    last["dcount"] = (counts - {first}) | {(first[0], 2 if first[1] == 1 else 1)}
    v2 = validate_tree(replace(run, states=[*run.states[:-1], last]))
    assert v2 is not None and not v2.ok


@pytest.mark.parametrize("model", TREE_LIVENESS_MODELS, ids=lambda m: m.name)
def test_every_split_eventually_confirmed(model: LiveModel) -> None:
    """spec/thesis/LiveTwoDTree.tla (item 5): SplitConfirmed holds under weak fairness of the
    TransferSub receipts and confirmations, and fails without either."""
    r = run_live(model)
    assert r.ok, r.detail
    assert (model.expect == "pass") == (r.status == "ok")
