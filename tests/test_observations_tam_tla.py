"""TLA+ trace validation of observed Scribe trees (properties/tam/observed.py): the tam
built-in's observations validate against spec/tam/Scribe.tla, with the constants the
reference's own map gives; a log with a message the model forbids (a JOIN forwarded past the
first tree node, a copy down an edge that is not the tree's) does not; a run outside the
map's bound is not validated."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from pubsub_spec.conformance.observed import observed_run
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.properties.tam.observed import fits, observed_scribe_runs, validate_observed
from pubsub_spec.properties.tam.trace_export import record_tam_runs, tam_trace
from pubsub_spec.reference.common.ops import Join
from pubsub_spec.reference.sim.observe import send

needs_tla = pytest.mark.skipif(shutil.which("tla") is None, reason="tla-checker not installed")


def test_observed_records_have_the_reference_map_s_constants() -> None:
    for seed in range(3):
        trace = tam_trace(seed)
        run = observed_run("tam", trace)
        assert fits(run) is None
        mine = {r.group: r for r in observed_scribe_runs(run)}
        theirs = {r.group: r for r in record_tam_runs(trace)}
        assert mine.keys() == theirs.keys() and mine
        for g, r in theirs.items():
            assert (mine[g].peers, mine[g].cand, mine[g].pubs) == (r.peers, r.cand, r.pubs)
            assert mine[g].states[0] == r.states[0] and not mine[g].problem


@needs_tla
def test_the_built_in_runs_validate() -> None:
    for seed in range(3):
        results = validate_observed(observed_run("tam", tam_trace(seed)))
        assert results
        for key, v in results:
            assert v is not None and v.ok, (seed, key, v)


def _insert(run: ObservedRun, after: int, extra: Observed) -> ObservedRun:
    log = list(run.log)
    log.insert(after + 1, extra)
    return replace(run, log=tuple(log))


def _verdict(run: ObservedRun, key: str) -> bool:
    """The key's verdict; a rejection names the recorded step that is no Scribe.tla step."""
    results = validate_observed(run)
    assert results is not None
    [v] = [v for k, v in results if k == key]
    assert v is not None
    assert v.ok or "is not a Next step" in v.detail, v
    return v.ok


@needs_tla
def test_a_join_passed_on_past_the_first_tree_node_is_rejected() -> None:
    """NonStopJoinTam's slip from the log (Tam et al. §3.3: routing stops upon encountering an
    edge of the multicast tree)."""
    for seed in range(10):
        run = observed_run("tam", tam_trace(seed))
        parent: dict[tuple[str, str], str] = {}
        for k, o in enumerate(run.log):
            ob = o.obs
            key = str(ob.fields.get("key"))
            if ob.name == "scribe-parent":
                parent[(key, ob.node)] = str(ob.fields["parent"])
            absorbed = ob.name == "scribe-child-added" and (
                k == 0 or run.log[k - 1].obs.node != ob.node
            )
            if absorbed and (key, ob.node) in parent:
                join = send("ScribeJoin", ob.node, parent[(key, ob.node)], key=key,
                            origin=str(ob.fields["child"]), repair=False)  # fmt: skip
                assert _verdict(run, key)
                assert not _verdict(_insert(run, k, Observed(o.seq, join)), key)
                return
    raise AssertionError("no JOIN absorbed below the root in 10 seeds")


@needs_tla
def test_a_copy_up_the_tree_is_rejected() -> None:
    """A copy from a child back to its parent: the spec sends copies only down the tree."""
    run = observed_run("tam", tam_trace(0))
    k, o = next((k, o) for k, o in enumerate(run.log) if o.obs.name == "ScribeMulticast")
    key = str(o.obs.fields["key"])
    up = send("ScribeMulticast", o.obs.to or "", o.obs.node, event=o.obs.event, key=key)
    assert _verdict(run, key)
    assert not _verdict(_insert(run, k, Observed(o.seq, up)), key)


def test_a_run_outside_the_bound_is_not_validated() -> None:
    trace = tam_trace(0)
    run = observed_run("tam", trace)
    churn = replace(run, trace=replace(trace, ops=(*trace.ops, Join(len(trace.ops) + 1, "x"))))
    assert fits(churn) is not None and validate_observed(churn) is None
    assert validate_observed(replace(run, system="tam-basic")) is None
