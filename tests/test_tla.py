"""Every TLA+ model of spec/manifest.json, passing models and mutants alike, at a bound that fits
CI: a model recorded at over CHEAP seconds runs with the reduced constant set the manifest records
beside the full one ("ci"), the others as their cfg states them. The models pass and explore about
the recorded number of distinct states; every mutant is rejected by the invariant it must
violate, with the counterexample printed. The full models are model-checked in CI by
`pubsub-spec check` run from the installed wheel (tests/test_packaging.py), which asserts the
same of them."""

from __future__ import annotations

import os

import pytest

from pubsub_spec.properties.tla import (
    SPEC,
    Model,
    at_ci_bound,
    load_manifest,
    run_model,
    tla_binary,
)

MODELS = load_manifest()
CHEAP = 10.0  # seconds recorded in the manifest
CHEAP_MODELS = [m for m in MODELS if m.seconds <= CHEAP]
CI_MODELS = [at_ci_bound(m) for m in MODELS]  # every model, the costly ones reduced
REDUCED_FLOOR = 1_000  # distinct states a passing model explores at least at its reduced bound
pytestmark = pytest.mark.tla


def _need_tla() -> None:
    try:
        tla_binary()
    except FileNotFoundError as e:
        if os.environ.get("CI"):
            raise  # CI installs it (scripts/setup.sh): missing there is a failure
        pytest.skip(str(e))


@pytest.mark.parametrize("model", CI_MODELS, ids=lambda m: m.name)
def test_model(model: Model) -> None:
    _need_tla()
    run = run_model(model)
    print(f"{model.name} {dict(model.constants)}: {run.detail} in {run.seconds:.1f}s\n{run.trace}")
    assert run.ok, run.detail
    if model.expect == "pass":  # a model that explores almost nothing proves nothing
        assert run.states >= (REDUCED_FLOOR if model.constants else 10_000), run.states


def test_every_model_runs_here_at_a_bound_that_fits_ci() -> None:
    """A model recorded at over CHEAP seconds has a reduced constant set, recorded at CHEAP
    seconds or less, that sets only constants its cfg declares; the models at their CI bound
    take at most CI_BUDGET seconds in all (as recorded)."""
    slow = [m.name for m in MODELS if m.seconds > CHEAP and m.ci is None]
    assert not slow, f"record a reduced constant set ('ci') in spec/manifest.json for {slow}"
    for m in MODELS:
        if m.ci is not None:
            assert m.ci.seconds <= CHEAP, m.name
            assert m.ci.states < m.states or m.expect != "pass", m.name  # reduced indeed
            declared = (SPEC / m.cfg).read_text()
            for name, _ in m.ci.constants:
                assert f"{name} =" in declared or f"{name} <-" in declared, (m.name, name)
    assert sum(m.seconds for m in CI_MODELS) <= CI_BUDGET


CI_BUDGET = 90.0  # recorded seconds of every model at its CI bound, summed


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
