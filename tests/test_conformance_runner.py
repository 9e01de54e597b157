"""The runner without Spark: a batch with bad traces still runs the rest and names what is
wrong; the file-based vector runner's command line; shrinking of failures; the report."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pubsub_spec.cmd_verify import main
from pubsub_spec.conformance.impls import Implementation, outside, register
from pubsub_spec.conformance.report import write_report
from pubsub_spec.conformance.run_vectors import VECTORS, list_traces
from pubsub_spec.conformance.runner import run_trace_list, run_traces, shrink_failures
from pubsub_spec.conformance.traceio import read_trace
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries

FAULTY = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "faulty.py"
GOOD = ["uniform-tiny-0000", "churn-tiny-0000", "partial-lenient-tiny-0000"]


def faulty(mode: str) -> str:
    return outside(f"{sys.executable} {FAULTY} --mode {mode}")


@pytest.fixture()
def batch(tmp_path: Path) -> list[Path]:
    """Three good vectors, then: a bad op, a bad expected file, an unreadable file, and a good
    trace without an expected file."""
    paths = []
    for name in GOOD:
        for suffix in (".ndjson", ".expected.ndjson"):
            shutil.copy(VECTORS / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
        paths.append(tmp_path / f"{name}.ndjson")
    text = (VECTORS / "zipf-tiny-0000.ndjson").read_text()

    def renamed(text: str, old: str, new: str) -> str:  # a trace id equals its file name
        return text.replace(f'"trace_id":"{old}"', f'"trace_id":"{new}"', 1)

    bad_op = renamed(text, "zipf-tiny-0000", "bad-op")
    (tmp_path / "bad-op.ndjson").write_text(bad_op.replace('"op":"publish"', '"op":"publsh"', 1))
    (tmp_path / "bad-expected.ndjson").write_text(renamed(text, "zipf-tiny-0000", "bad-expected"))
    exp = (VECTORS / "zipf-tiny-0000.expected.ndjson").read_text().splitlines()
    (tmp_path / "bad-expected.expected.ndjson").write_text("\n".join(exp[1:]) + "\n")
    (tmp_path / "unreadable.ndjson").write_bytes(b"\xff\xfe not utf-8")
    cutoff = (VECTORS / "cutoff-tiny-0000.ndjson").read_text()
    (tmp_path / "no-expected.ndjson").write_text(renamed(cutoff, "cutoff-tiny-0000", "no-expected"))
    names = ["bad-op", "bad-expected", "unreadable", "no-expected"]
    return paths + [tmp_path / f"{n}.ndjson" for n in names]


def test_bad_traces_in_a_batch_are_rejected_and_the_rest_runs(batch: list[Path]) -> None:
    verdicts = run_traces(["reference", "oracle-python"], batch)
    assert [v.impl for v in verdicts] == ["reference"] * 7 + ["oracle-python"] * 7
    by = {(v.impl, v.trace_id): v for v in verdicts}
    for impl in ("reference", "oracle-python"):
        for tid in [*GOOD, "no-expected"]:
            assert by[(impl, tid)].verdict == "pass", by[(impl, tid)].describe()
        bad = by[(impl, "bad-op")]
        assert (bad.verdict, bad.kind) == ("skipped", "bad-trace")
        assert "bad-op.ndjson line" in bad.reason and "field 'op'" in bad.reason
        exp = by[(impl, "bad-expected")]  # the trace is fine, its expected file is not
        assert (exp.verdict, exp.kind) == ("skipped", "bad-expected")
        assert "bad-expected.expected.ndjson line 1: field 'event'" in exp.reason
        unr = by[(impl, "unreadable")]
        assert unr.kind == "bad-trace" and "unreadable.ndjson" in unr.reason


def test_a_crashing_builtin_implementation_fails_naming_the_exception() -> None:
    def broken(trace: Trace) -> list[Delivery]:
        raise RuntimeError("boom")

    register(Implementation("test-broken", broken))
    trace = read_trace(VECTORS / "uniform-tiny-0000.ndjson")
    [bad, good] = run_trace_list(["test-broken", "oracle-python"], [trace])
    assert bad.verdict == "fail" and bad.kind == "crash" and "RuntimeError('boom')" in bad.reason
    assert good.verdict == "pass"
    [unknown] = run_trace_list(["no-such-impl"], [trace])
    assert unknown.verdict == "skipped" and unknown.kind == "unknown-impl"


def test_vector_runner_command_line(
    batch: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = batch[0].parent
    assert list_traces(VECTORS)[0].name == json.loads((VECTORS / "index.json").read_text())[0][
        "trace"
    ]
    code = main(["--builtin", "oracle-python", "--json", str(tmp_path / "v.json"), str(directory)])
    text = capsys.readouterr().out
    assert code == 0, text  # rejected inputs are not the implementation's fault
    assert "oracle-python: pass (4/7 traces pass, 3 rejected" in text
    assert "bad trace:" in text
    assert len(json.loads((tmp_path / "v.json").read_text())["verdicts"]) == 7
    code = main(["--impl", f"{sys.executable} {FAULTY} --mode twice", *map(str, batch[:3])])
    text = capsys.readouterr().out
    assert code == 1 and "duplicate: (e" in text, text
    with pytest.raises(SystemExit):
        main(["--builtin", "nope"])


def test_failures_are_shrunk_and_reported_with_their_trace(tmp_path: Path) -> None:
    paths = [VECTORS / "churn-small-0000.ndjson", VECTORS / "uniform-small-0000.ndjson"]
    impls = ["oracle-python", faulty("drop"), faulty("crash")]
    verdicts = run_traces(impls, paths, op_timeout=2.0)
    verdicts = shrink_failures(verdicts, paths, tmp_path, op_timeout=2.0)
    drops = [v for v in verdicts if "drop" in v.impl]
    crashes = [v for v in verdicts if "crash" in v.impl]
    assert all(v.kind == "deliveries" and len(v.missing) == 1 for v in drops)
    assert all(v.kind == "crash" for v in crashes)
    for v in drops + crashes:
        small = read_trace(tmp_path / v.extra["shrunk"])
        original = read_trace(VECTORS / f"{v.trace_id}.ndjson")
        assert len(small.ops) < len(original.ops) // 4, (v.trace_id, len(small.ops))
    for v in drops:
        assert expected_deliveries(read_trace(tmp_path / v.extra["shrunk"]))
    assert {v.extra["shrunk_ops"] for v in crashes} == {"5"}  # it crashes at its 5th op
    assert all("1 missing" in v.extra["shrunk_verdict"] for v in drops)
    md = write_report(tmp_path, verdicts, "Test report", ["a note"]).read_text()
    assert "| oracle-python | pass |" in md
    assert "smallest failing trace: `shrunk/" in md and '"op":"publish"' in md
    assert "crashed (exit 7) during op seq" in md
    page = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in page and "<pre>" in page


def test_plot_labels_tell_outside_commands_apart() -> None:
    from pubsub_spec.conformance.report import short_label

    assert short_label("cmd:/usr/bin/python3 /a/b/faulty.py --mode drop") == (
        "cmd: python3 faulty.py --mode drop"
    )
    assert short_label("x" * 50).startswith("...") and len(short_label("x" * 50)) == 36
