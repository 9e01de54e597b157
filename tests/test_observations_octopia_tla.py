"""TLA+ trace validation of observed OctopiA notification routing
(properties/octopia/observed.py): the octopia-snr and octopia-idr built-ins' observations give
exactly the records the reference's own map records, and validate against
spec/octopia/ScotRouting.tla; a log with a copy the model forbids (to a cluster outside the
STCs, back to its sender) does not; a run outside the map's bound is not validated."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from pubsub_spec.conformance.observed import observed_run
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.properties.octopia.observed import fits, observed_scot_runs, validate_observed
from pubsub_spec.properties.octopia.trace_export import record_scot_runs, scot_trace
from pubsub_spec.reference.common.ops import Unsubscribe
from pubsub_spec.reference.sim.observe import send

needs_tla = pytest.mark.skipif(shutil.which("tla") is None, reason="tla-checker not installed")


@pytest.mark.parametrize("routing", ["snr", "idr"])
def test_observed_records_are_the_reference_map_s(routing: str) -> None:
    for seed in range(4):
        trace = scot_trace(seed, routing)
        run = observed_run(f"octopia-{routing}", trace)
        assert fits(run) is None
        mine = {r.event: r for r in observed_scot_runs(run)}
        theirs = {r.event: r for r in record_scot_runs(trace, routing)}
        assert mine.keys() == theirs.keys() and mine
        for e, r in theirs.items():
            assert (mine[e].states, mine[e].host, mine[e].nx, mine[e].m) == (
                r.states, r.host, r.nx, r.m,
            )  # fmt: skip


@needs_tla
@pytest.mark.parametrize("routing", ["snr", "idr"])
def test_the_built_in_runs_validate(routing: str) -> None:
    for seed in (3, 6):
        results = validate_observed(observed_run(f"octopia-{routing}", scot_trace(seed, routing)))
        assert results
        for e, v in results:
            assert v.ok, (seed, e, v)


def _with_extra(run: ObservedRun, after: int, extra: Observed) -> ObservedRun:
    log = list(run.log)
    log.insert(after + 1, extra)
    return replace(run, log=tuple(log))


def _forwarding_run() -> tuple[ObservedRun, int, Observed]:
    """A run in which a broker other than the host sends a Notification it received: the run,
    the index of that send and the copy it received."""
    for seed in range(20):
        run = observed_run("octopia-snr", scot_trace(seed, "snr"))
        got: dict[tuple[str | None, str], Observed] = {}
        for k, o in enumerate(run.log):
            ob = o.obs
            if ob.kind == "send" and ob.name == "Notification":
                if (ob.event, ob.node) in got:
                    return run, k, got[(ob.event, ob.node)]
                got[(ob.event, ob.to or "")] = o
    raise AssertionError("no forwarding broker in 20 seeds")


@needs_tla
def test_a_notification_back_to_its_sender_is_rejected() -> None:
    run, k, received = _forwarding_run()
    ob = run.log[k].obs
    back = send(
        "Notification", ob.node, received.obs.node, event=ob.event, civ=[], depth=2, link="alink"
    )
    results = validate_observed(_with_extra(run, k, Observed(run.log[k].seq, back)))
    assert results is not None
    bad = [(e, v) for e, v in results if not v.ok]
    assert [e for e, _ in bad] == [ob.event], results
    assert bad[0][1].status != "ok" and "is not a Next step" in bad[0][1].detail


@needs_tla
def test_a_copy_outside_the_stcs_is_rejected() -> None:
    """StcToAllScot's slip from the log: the host sends a plain copy over an iLink to a cluster
    it has no copy for (OctopiA §VII-A: one copy per STC only)."""
    for seed in range(20):
        run = observed_run("octopia-snr", scot_trace(seed, "snr"))
        pub = next(k for k, o in enumerate(run.log) if o.obs.name == "publish")
        host = run.log[pub].obs.node
        x, i = host[2:-1].split(",")
        sent = {o.obs.to for o in run.log if o.obs.name == "Notification" and o.obs.node == host}
        m = 3 if any(f",{2})" in (o.obs.node or "") for o in run.log) else 2
        free = [f"B({x},{j})" for j in range(m) if str(j) != i and f"B({x},{j})" not in sent]
        if not free:
            continue
        ev = run.log[pub].obs.event
        extra = send("Notification", host, free[0], event=ev, civ=[], depth=1, link="ilink")
        results = validate_observed(_with_extra(run, pub, Observed(run.log[pub].seq, extra)))
        assert results is not None
        verdict = dict(results)
        assert not verdict[ev or ""].ok, verdict
        assert "is not a Next step" in verdict[ev or ""].detail
        assert all(v.ok for e, v in results if e != ev)
        return
    raise AssertionError("no host with a cluster outside its STCs in 20 seeds")


def test_a_run_outside_the_bound_is_not_validated() -> None:
    trace = scot_trace(1, "snr")
    sub = next(op for op in trace.ops if hasattr(op, "sub"))
    late = replace(trace, ops=(*trace.ops, Unsubscribe(len(trace.ops) + 1, sub.sub.id)))
    run = replace(observed_run("octopia-snr", trace), trace=late)
    assert fits(run) is not None and "unsubscription" in (fits(run) or "")
    assert validate_observed(run) is None
    other = replace(observed_run("octopia-snr", trace), system="tid")
    assert validate_observed(other) is None
