"""`pubsub-spec simulate`: the thesis' workload, scaled down, agrees with the oracle."""

from __future__ import annotations

import pytest

from pubsub_spec.cli import main
from pubsub_spec.reference.common.ops import Subscribe, validate_trace
from pubsub_spec.reference.thesis.workload import (
    THESIS_PROFILES,
    thesis_schema,
    thesis_trace,
    zipf_subscription,
)

SMALL = ["simulate", "--nodes", "60", "--subs-per-node", "3", "--events", "150", "--seed", "2"]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--delivery", "multicast"],
        ["--delivery", "lbdd"],
        ["--cutoff", "0.1", "--matching", "lenient"],
        ["--widening", "5", "--leaf-update-loss", "0.5", "--leaf-update-delay-ms", "2000"],
    ],
)
def test_simulate_agrees_with_oracle(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*SMALL, *extra])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    assert (
        out[-1].startswith("oracle: agree (") and " 0 missed, 0 duplicate, 0 spurious)" in out[-1]
    )
    assert any(line.startswith("ProbePub ") for line in out)


def test_simulate_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    main(SMALL)
    first = capsys.readouterr().out
    main(SMALL)
    assert capsys.readouterr().out == first


def test_bad_cutoff_is_rejected_with_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SMALL, "--cutoff", "Nope=3"]) == 2
    assert "cutoff.Nope" in capsys.readouterr().err


def test_workload_is_partition_independent_and_in_domain() -> None:
    """Each subscription depends only on (seed, index): generating it alone gives the same."""
    trace = thesis_trace(20, 5, 10, seed=7)
    schema = thesis_schema()
    op = trace.ops[42]
    assert isinstance(op, Subscribe)
    alone = zipf_subscription(7, 42, schema, THESIS_PROFILES, "x", "s42")
    assert op.sub.predicates == alone.predicates
    validate_trace(trace)
