"""Trace validation of Kyra: small reference runs exported as abstract states are behaviours
of spec/kyra/KyraRouting.tla; tampered records and the flood-tree mutant (which the delivery
oracle alone does not catch) are rejected."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pubsub_spec.properties.kyra.trace_export import (
    FloodTreeKyra,
    KyraTraceSystem,
    cliques_of,
    in_flight,
    kyra_trace,
    oracle_agrees_kyra,
    record_kyra_run,
    validate_kyra,
)
from pubsub_spec.properties.tla import tla_binary
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.sim.run import run_trace

try:
    tla_binary()
except FileNotFoundError:  # pragma: no cover - CI installs it (scripts/setup.sh)
    pytest.skip("tla-checker not installed", allow_module_level=True)

SEEDS = range(3)


def test_hook_does_not_change_the_run() -> None:
    """The observing subclass draws nothing and sends nothing: same log, same deliveries."""
    for seed in SEEDS:
        t = kyra_trace(seed)
        a = run_trace(t, lambda tr: KyraSystem(tr, cliques_of(tr)))
        b = run_trace(t, lambda tr: KyraTraceSystem(tr, cliques_of(tr)))
        assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries


def test_reference_runs_validate() -> None:
    delivered = raced = unsubscribed = 0
    for seed in SEEDS:
        run = record_kyra_run(kyra_trace(seed))
        assert run.problem == ""
        v = validate_kyra(run)
        assert v is not None and v.ok, (seed, v and v.detail, v and v.trace)
        assert v.states == len(run.states) > 10
        delivered += any(s["dcount"] for s in run.states)
        raced += any(in_flight(s) >= {"prop", "route"} for s in run.states)
        unsubscribed += bool(run.unsubs) and run.states[-1]["unsubbed"] == run.unsubs
    # the runs reach deliveries, events racing entries and the unsubscription step
    assert delivered > 0 and raced > 0 and unsubscribed == len(SEEDS)


def test_tampered_records_are_rejected() -> None:
    run = record_kyra_run(kyra_trace(1))
    dropped = replace(run, states=run.states[:5] + run.states[6:])
    v = validate_kyra(dropped)
    assert v is not None and not v.ok and v.status == "deadlock"
    last = dict(run.states[-1])
    last["dcount"] = frozenset({((1, 1), 2)})  # a delivery counted twice
    v = validate_kyra(replace(run, states=[*run.states[:-1], last]))
    assert v is not None and not v.ok


def test_flood_tree_mutant_rejected_but_oracle_agrees() -> None:
    for seed in SEEDS:
        assert oracle_agrees_kyra(kyra_trace(seed), FloodTreeKyra)
    v = validate_kyra(record_kyra_run(kyra_trace(0), FloodTreeKyra))
    assert v is not None and not v.ok and v.status == "deadlock"
