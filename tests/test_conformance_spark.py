"""The Spark pipeline: deterministic generation whatever the partitioning, the Spark SQL oracle
agreeing with the Python oracle on every generated trace, distributed runs, and the conform
command end to end."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec.conformance.runner import run_traces
from pubsub_spec.conformance.spark_generate import generate_trace_set
from pubsub_spec.conformance.traceio import read_expected, read_trace
from pubsub_spec.conformance.verdict import Verdict
from pubsub_spec.reference.common.oracle import expected_deliveries
from tests.spark_fixtures import spark

__all__ = ["spark"]
FAULTY = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "faulty.py"
pytestmark = pytest.mark.spark


# generation per partitioning and the agreement of both oracles:
# tests/test_conformance_spark_pipeline.py


def _comparable(v: Verdict) -> Verdict:
    return replace(v, seconds=0.0)


def test_distributed_run_with_a_bad_trace_in_the_batch(spark: Any, tmp_path: Path) -> None:
    paths = generate_trace_set(spark, tmp_path, ["boundaries", "cutoff"], 2, 3, "tiny")
    bad = paths[0].with_name("zz-bad.ndjson")
    bad.write_text(paths[0].read_text().replace('"op":"publish"', '"op":"publsh"', 1))
    drop = f"cmd:{sys.executable} {FAULTY} --mode drop"
    impls = ["reference", "oracle-python", drop]
    verdicts = run_traces(impls, [*paths, bad], spark, op_timeout=2.0)
    good = [v for v in verdicts if v.trace_id != "zz-bad" and v.impl != drop]
    assert len(good) == 2 * len(paths) and all(v.verdict == "pass" for v in good)
    rejected = [v for v in verdicts if v.trace_id == "zz-bad"]
    assert len(rejected) == 3
    assert all(v.verdict == "skipped" and "zz-bad.ndjson line" in v.reason for v in rejected)
    dropped = [v for v in verdicts if v.impl == drop and v.verdict == "fail"]
    assert dropped and all(len(v.missing) == 1 for v in dropped)  # ran on the executors
    sequential = run_traces(impls, [*paths, bad], None, op_timeout=2.0)
    assert [_comparable(v) for v in verdicts] == [_comparable(v) for v in sequential]
    t = read_trace(paths[0])
    assert read_expected(paths[0].with_name(f"{t.trace_id}.expected.ndjson")) == sorted(
        expected_deliveries(t)
    )


def test_conform_command_end_to_end(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pubsub_spec.cli import main

    code = main(
        [
            "conform",
            "--out",
            str(tmp_path),
            "--count",
            "1",
            "--profile",
            "small",
            "--generators",
            "uniform,churn,partial-lenient",
            "--impls",
            "reference,oracle-python",
            "--impl",
            f"{sys.executable} {FAULTY} --mode drop",
        ]
    )
    captured = capsys.readouterr()
    out = captured.out
    assert code == 1  # the faulty implementation fails
    assert "reference" in out and "fail" in out and "missing" in out
    assert "[conform" in captured.err and "runs done" in captured.err  # progress
    assert spark.sparkContext._jsc is not None  # the caller's session is left running
    md = (tmp_path / "report.md").read_text()
    assert "| reference | pass |" in md and "| oracle-python | pass |" in md
    assert "smallest failing trace" in md and list((tmp_path / "shrunk").glob("*.ndjson"))
    assert "data:image/png;base64," in (tmp_path / "report.html").read_text()


def test_conform_with_a_hostile_implementation_keeps_every_other_verdict(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flooding implementation gets its verdict within the limits, the report is
    written in full, the built-ins' verdicts are intact, and the run exits 1."""
    from pubsub_spec.cli import main

    hostile = FAULTY.parent / "hostile" / "hostile.py"
    code = main(
        [
            "conform", "--out", str(tmp_path), "--count", "1", "--profile", "tiny",
            "--generators", "uniform,churn", "--impls", "reference,oracle-python",
            "--impl", f"{sys.executable} {hostile} --mode flood",
            "--op-timeout", "2", "--total-timeout", "20", "--no-shrink",
        ]
    )  # fmt: skip
    capsys.readouterr()
    assert code == 1
    md = (tmp_path / "report.md").read_text()
    assert "| reference | pass |" in md and "| oracle-python | pass |" in md
    row = next(line for line in md.splitlines() if line.startswith("| cmd:"))
    assert "| pass |" not in row and ("| unknown |" in row or "| fail |" in row), row
    assert (tmp_path / "report.html").exists()


class _Conf:
    """A Spark session's `conf` as the oracle uses it (get with a default, set, unset)."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.values[key] = value

    def unset(self, key: str) -> None:
        self.values.pop(key, None)


def test_the_oracles_session_settings_are_put_back_whatever_happens() -> None:
    """`session_settings` (the SQL oracle's COPARTITION, the scale run's shuffle partitions):
    set for the actions inside, then a value that was set is restored and one that was not is
    unset, also when an action fails."""
    from types import SimpleNamespace

    from pubsub_spec.conformance.spark_oracle import COPARTITION, session_settings

    conf = _Conf({"spark.sql.shuffle.partitions": "200"})
    spark = SimpleNamespace(conf=conf)
    wanted = {"spark.sql.shuffle.partitions": "8", **COPARTITION}
    with session_settings(spark, wanted):
        assert conf.values == wanted
    assert conf.values == {"spark.sql.shuffle.partitions": "200"}
    with pytest.raises(RuntimeError), session_settings(spark, wanted):
        raise RuntimeError("an action failed")
    assert conf.values == {"spark.sql.shuffle.partitions": "200"}
