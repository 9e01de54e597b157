"""Trace validation of Tam et al. over Scribe: each group's tree in small reference runs,
exported as abstract states, is a behaviour of spec/tam/Scribe.tla; tampered records and the
non-stop-join mutant (which the delivery oracle alone does not catch) are rejected."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pubsub_spec.properties.tam.trace_export import (
    NonStopJoinTam,
    TamTraceSystem,
    embed,
    in_flight,
    oracle_agrees_tam,
    record_tam_runs,
    spec_next_hop,
    tam_trace,
    validate_scribe,
)
from pubsub_spec.properties.tla import tla_binary
from pubsub_spec.reference.sim.run import run_trace
from pubsub_spec.reference.tam.system import TamSystem

try:
    tla_binary()
except FileNotFoundError:  # pragma: no cover - CI installs it (scripts/setup.sh)
    pytest.skip("tla-checker not installed", allow_module_level=True)

SEEDS = range(3)


def test_hook_does_not_change_the_run() -> None:
    """The observing subclass draws nothing and sends nothing: same log, same deliveries."""
    for seed in SEEDS:
        t = tam_trace(seed)
        a = run_trace(t, TamSystem.for_trace)
        b = run_trace(t, TamTraceSystem.for_trace)
        assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries


def test_embedding_is_the_spec_routing() -> None:
    parent = {2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3, 8: 7}  # a route tree rooted at peer 1
    ids = embed(1, parent)
    assert ids is not None and ids[1] == 1
    alive = frozenset(ids.values())
    assert all(spec_next_hop(ids[p], alive) == ids[q] for p, q in parent.items())
    assert embed(1, {2: 3, 3: 2}) is None  # not a tree rooted at the home


def test_reference_runs_validate() -> None:
    multi_hop = delivered = left = 0
    for seed in SEEDS:
        for run in record_tam_runs(tam_trace(seed)):
            assert run.problem == ""
            v = validate_scribe(run)
            assert v is not None and v.ok, (seed, run.group, v and v.detail, v and v.trace)
            assert v.states == len(run.states)
            multi_hop += max(run.peers) >= 4  # a peer two hops below the root
            delivered += bool(run.states[-1]["got"])
            left += any("leave" in in_flight(s) for s in run.states)
    assert multi_hop and delivered and left


def test_tampered_records_are_rejected() -> None:
    run = next(r for r in record_tam_runs(tam_trace(0)) if len(r.states) > 8)
    v = validate_scribe(replace(run, states=run.states[:3] + run.states[4:]))
    assert v is not None and not v.ok
    last = dict(run.states[-1])
    last["mem"] = frozenset((p, True) for p in run.peers)  # everyone a member
    v = validate_scribe(replace(run, states=[*run.states[:-1], last]))
    assert v is not None and not v.ok


def test_non_stop_join_mutant_rejected_but_oracle_agrees() -> None:
    for seed in SEEDS:
        assert oracle_agrees_tam(tam_trace(seed), NonStopJoinTam)
    verdicts = [validate_scribe(r) for r in record_tam_runs(tam_trace(0), NonStopJoinTam)]
    assert any(v is not None and not v.ok and v.status == "deadlock" for v in verdicts)
