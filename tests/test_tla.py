"""Every TLA+ model of spec/manifest.json: the models pass and explore about the recorded number
of distinct states (>= 10^4 each); every mutant is rejected by the invariant it must violate,
with the counterexample printed. The models recorded at over CHEAP seconds are model-checked once
in CI, by `pubsub-spec check` run from the installed wheel (tests/test_packaging.py), which
asserts the same of them; here the rest, one test each."""

from __future__ import annotations

import os

import pytest

from pubsub_spec.properties.tla import SPEC, Model, load_manifest, run_model, tla_binary

MODELS = load_manifest()
CHEAP = 10.0  # seconds recorded in the manifest
CHEAP_MODELS = [m for m in MODELS if m.seconds <= CHEAP]
pytestmark = pytest.mark.tla


def _need_tla() -> None:
    try:
        tla_binary()
    except FileNotFoundError as e:
        if os.environ.get("CI"):
            raise  # CI installs it (scripts/setup.sh): missing there is a failure
        pytest.skip(str(e))


@pytest.mark.parametrize("model", CHEAP_MODELS, ids=lambda m: m.name)
def test_model(model: Model) -> None:
    _need_tla()
    run = run_model(model)
    print(f"{model.name}: {run.detail} in {run.seconds:.1f}s\n{run.trace}")
    assert run.ok, run.detail
    if model.expect == "pass":
        assert run.states >= 10_000, "a model that explores almost nothing proves nothing"


def test_every_invariant_has_a_passing_model_and_a_mutant() -> None:
    for inv in {m.invariant for m in MODELS}:
        assert any(m.expect != "pass" for m in MODELS if m.invariant == inv), f"no mutant: {inv}"
    assert {m.invariant for m in MODELS if m.expect == "pass"} >= {
        "one-way dissemination",
        "no missed matches under growth-only trees",
        "single delivery with cut-off remapping",
    }


def test_manifest_lists_every_model() -> None:
    cfgs = {p.relative_to(SPEC).as_posix() for p in SPEC.glob("*/MC*.cfg")}
    listed = {m.cfg for m in MODELS}
    assert cfgs == listed, f"not in spec/manifest.json: {cfgs - listed}; missing: {listed - cfgs}"
    for m in MODELS:
        assert (SPEC / m.module).exists(), m.module


def test_a_model_is_bounded_by_its_state_count_not_by_time() -> None:
    """The work of a model is bounded by a count (tla-checker's --max-states at twice
    the recorded states), so a model that explores more than it should stops at the same point
    on any machine and is reported, whatever the load; the safety nets are generous and do not
    shrink with a slow machine (CPU time, at least 10 minutes; wall clock, at least an hour)."""
    from dataclasses import replace

    from pubsub_spec.properties.tla import cpu_budget, safety_timeout, state_bound

    _need_tla()
    passing = next(m for m in CHEAP_MODELS if m.expect == "pass")
    assert state_bound(passing) == 2 * passing.states + 1
    assert cpu_budget(passing) >= 600 and safety_timeout(passing) >= 3600.0
    shrunk = replace(passing, states=100)  # a manifest count far below what the model needs
    run = run_model(shrunk)
    assert not run.ok and run.status == "max_states_exceeded", run.detail
    assert run.states == state_bound(shrunk) + 1  # tla-checker stops one past its bound


def test_a_model_out_of_its_cpu_budget_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU safety net (RLIMIT_CPU of the checker) ends a run that spends more than its
    budget, and the row says so; CPU seconds, unlike wall-clock seconds, do not grow when the
    machine is loaded."""
    from pubsub_spec.properties import tla

    _need_tla()
    slowest = max(CHEAP_MODELS, key=lambda m: m.seconds)
    assert slowest.seconds >= 3.0
    monkeypatch.setattr(tla, "cpu_budget", lambda m: 1)
    run = run_model(slowest)
    assert not run.ok and run.status == "timeout", run.detail
    assert "CPU budget" in run.detail
