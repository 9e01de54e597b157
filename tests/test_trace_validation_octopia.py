"""Trace validation of OctopiA's notification routing (SNR and IDR): each publication of small
reference runs, exported as abstract states, is a behaviour of spec/octopia/ScotRouting.tla;
tampered records and the STC-to-all mutant (which the delivery oracle alone does not catch)
are rejected."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pubsub_spec.properties.octopia.trace_export import (
    ScotTraceSystem,
    StcToAllScot,
    civ_copies,
    oracle_agrees_scot,
    record_scot_runs,
    scot_trace,
    validate_scot,
)
from pubsub_spec.properties.tla import tla_binary
from pubsub_spec.reference.octopia.config import config_of
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.sim.run import run_trace

try:
    tla_binary()
except FileNotFoundError:  # pragma: no cover - CI installs it (scripts/setup.sh)
    pytest.skip("tla-checker not installed", allow_module_level=True)

SEEDS = range(4)


@pytest.mark.parametrize("routing", ["snr", "idr"])
def test_hook_does_not_change_the_run(routing: str) -> None:
    """The observing subclass draws nothing and sends nothing: same log, same deliveries."""
    section = f"octopia-{routing}"
    for seed in SEEDS:
        t = scot_trace(seed, routing)
        a = run_trace(t, lambda tr: OctopiaSystem(tr, config_of(tr, section), routing))
        b = run_trace(t, lambda tr: ScotTraceSystem(tr, config_of(tr, section), routing))
        assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries


@pytest.mark.parametrize("routing", ["snr", "idr"])
def test_reference_runs_validate(routing: str) -> None:
    states = civ_n = 0
    for seed in SEEDS:
        for run in record_scot_runs(scot_trace(seed, routing), routing):
            v = validate_scot(run)
            assert v.ok, (seed, run.event, v.detail, v.trace)
            assert v.states == len(run.states)
            states += len(run.states)
            civ_n += civ_copies(run)
    assert states > 20
    assert (civ_n > 0) == (routing == "idr")  # IDR detours (CIV-Ns) are reached


def test_tampered_records_are_rejected() -> None:
    run = max(record_scot_runs(scot_trace(3, "idr"), "idr"), key=lambda r: len(r.states))
    v = validate_scot(replace(run, states=run.states[:2] + run.states[3:]))
    assert not v.ok and v.status == "deadlock"
    last = dict(run.states[-1])
    last["subs"] = frozenset()  # the subscribers forgotten at the end
    v = validate_scot(replace(run, states=[*run.states[:-1], last]))
    assert not v.ok


@pytest.mark.parametrize("routing", ["snr", "idr"])
def test_stc_to_all_mutant_rejected_but_oracle_agrees(routing: str) -> None:
    for seed in SEEDS:
        assert oracle_agrees_scot(scot_trace(seed, routing), routing, StcToAllScot)
    verdicts = [
        validate_scot(r)
        for seed in SEEDS
        for r in record_scot_runs(scot_trace(seed, routing), routing, StcToAllScot)
    ]
    assert any(not v.ok and v.status == "deadlock" for v in verdicts)
