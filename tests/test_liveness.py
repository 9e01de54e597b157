"""Liveness under fairness: spec/lbdd/LiveLBDD.tla passes with tla-checker's
--check-liveness and each of its mutants (no fairness, equal slices) is rejected."""

from __future__ import annotations

import pytest

from pubsub_spec.properties.liveness import LIVENESS_MODELS, LiveModel, run_live
from pubsub_spec.properties.tla import tla_binary

try:
    tla_binary()
except FileNotFoundError:  # pragma: no cover - CI installs it (scripts/setup.sh)
    pytest.skip("tla-checker not installed", allow_module_level=True)


@pytest.mark.parametrize("model", LIVENESS_MODELS, ids=lambda m: m.name)
def test_liveness_model(model: LiveModel) -> None:
    r = run_live(model)
    assert r.ok, r.detail


def test_a_passing_model_and_a_mutant_per_property() -> None:
    props = {m.expect for m in LIVENESS_MODELS if m.expect != "pass"}
    assert props == {"EventuallyDelivered"}
    assert any(m.expect == "pass" for m in LIVENESS_MODELS)
