"""`pubsub-spec systems` and `simulate --system` go through the registry; built-ins declare
features and are skipped, with the reason, on a trace that needs one they lack."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pubsub_spec.cli import main
from pubsub_spec.conformance.impls import Implementation, builtin, register
from pubsub_spec.conformance.run_vectors import VECTORS
from pubsub_spec.conformance.runner import run_trace_list
from pubsub_spec.conformance.traceio import read_trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.registry import SYSTEMS


def test_systems_lists_the_thesis_with_strategies_and_features(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["systems", "-v"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("thesis: ")
    for word in ("reference (default)", "reference-multicast", "reference-lbdd", "RndLeafProbe"):
        assert word in out
    assert "features:      strict, lenient, churn, multi-schema\n" in out
    assert "ProbePubMulticast" in out and "config.systems.thesis" in out


def test_simulate_by_system_name_prints_what_the_system_declares(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["simulate", "--nodes", "30", "--subs-per-node", "2", "--events", "40", "--seed", "3"]
    assert main([*args, "--system", "thesis"]) == 0
    out = capsys.readouterr().out
    for t in SYSTEMS["thesis"].message_types:
        assert f"\n{t.name} " in out
    assert "2d-tree: " in out and out.rstrip().splitlines()[-1].startswith("oracle: agree")
    with pytest.raises(SystemExit):
        main([*args, "--system", "no-such-system"])


def test_every_variant_is_a_builtin_with_the_systems_features() -> None:
    impls = builtin()
    for info in SYSTEMS.values():
        for v in info.variants:
            assert impls[v.builtin].features == info.features


def test_a_builtin_lacking_a_feature_is_skipped_with_the_reason() -> None:
    strict_only = frozenset({"strict", "multi-schema"})
    register(Implementation("test-strict-only", expected_deliveries, features=strict_only))
    lenient = read_trace(VECTORS / "partial-lenient-tiny-0000.ndjson")
    churn = read_trace(VECTORS / "churn-tiny-0000.ndjson")
    strict = read_trace(VECTORS / "uniform-tiny-0000.ndjson")
    assert lenient.matching == "lenient" and strict.matching == "strict"
    [a, b, c] = run_trace_list(["test-strict-only"], [lenient, churn, strict])
    assert (a.verdict, a.kind) == ("skipped", "feature") and "lenient" in a.reason
    assert (b.verdict, b.kind) == ("skipped", "feature") and "churn" in b.reason
    assert c.verdict == "pass"
    # a full-featured built-in runs the same traces
    verdicts = run_trace_list(["oracle-python"], [lenient, churn, replace(strict)])
    assert [v.verdict for v in verdicts] == ["pass"] * 3
