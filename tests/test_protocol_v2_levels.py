"""Two verdict levels everywhere a verdict appears (conformance/OBSERVATIONS.md, "Verdict
levels"): `verify --level protocol` (lines, exit code, JSON, JUnit, report), the default level
unchanged, the overall protocol level of a set, and conform's exit rule under --level
protocol."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pubsub_spec.cli import main
from pubsub_spec.cmd_conform import protocol_fails, verdict_case
from pubsub_spec.conformance.report import markdown
from pubsub_spec.conformance.verdict import Verdict, overall_protocol
from tests.test_ci_outputs import read_junit
from tests.test_observed import BROADCAST

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "conformance" / "vectors"
FAULTY = ROOT / "conformance" / "examples" / "faulty.py"
TRACES = [str(VECTORS / "uniform-small-0000.ndjson"), str(VECTORS / "zipf-tiny-0000.ndjson")]


def broadcast(tmp_path: Path) -> str:
    path = tmp_path / "broadcast.py"
    path.write_text(BROADCAST)
    return f"{sys.executable} {path}"


def test_builtin_reference_conforms_at_the_protocol_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    js = tmp_path / "v.json"
    code = main(["verify", "--builtin", "reference", "--level", "protocol", "--json", str(js),
                 *TRACES])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("; protocol: conforms") == 3 and out.rstrip().endswith("protocol: conforms")
    data = json.loads(js.read_text())
    assert data["level"] == "protocol" and data["implementations"][0]["protocol"] == "conforms"
    assert {v["protocol"] for v in data["verdicts"]} == {"conforms"}


def test_broadcast_passes_delivery_and_deviates_at_the_protocol_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    impl = broadcast(tmp_path)
    js, junit, report = tmp_path / "v.json", tmp_path / "v.xml", tmp_path / "r"
    assert main(["verify", "--impl", impl, "--json", str(js), *TRACES]) == 0  # default level
    data = json.loads(js.read_text())
    assert data["level"] == "delivery" and "protocol" not in data["implementations"][0]
    assert {v["protocol"] for v in data["verdicts"]} == {""}
    capsys.readouterr()
    code = main(["verify", "--impl", impl, "--level", "protocol", "--json", str(js),
                 "--junit", str(junit), "--report", str(report), *TRACES])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1, out  # the exit code of a delivery fail
    assert "pass (" in out and "protocol: deviates (generic/cost-envelope)" in out
    data = json.loads(js.read_text())
    assert data["exit_code"] == 1
    assert data["implementations"][0]["verdict"] == "pass"
    assert data["implementations"][0]["protocol"] == "deviates (generic/cost-envelope)"
    cases = read_junit(junit)
    assert set(cases) == {"uniform-small-0000", "zipf-tiny-0000"}
    assert all(o == "failure" and "generic/cost-envelope" in m for o, m in cases.values())
    md = (report / "report.md").read_text()
    assert "| implementation | verdict | protocol | pass |" in md
    assert "| pass | deviates (generic/cost-envelope) |" in md
    assert "## Protocol deviations" in md and "is below the envelope" in md
    assert "<th>protocol</th>" in (report / "report.html").read_text()


def test_version_1_program_is_not_reported_and_fails_the_protocol_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    impl = f"{sys.executable} {FAULTY} --mode none"
    assert main(["verify", "--impl", impl, "--level", "protocol", TRACES[1]]) == 1
    assert capsys.readouterr().out.rstrip().endswith("protocol: not reported")


def verdict(protocol: str, verdict: str = "pass", impl: str = "x") -> Verdict:
    return Verdict(impl, "t", "g", verdict, checked=1, protocol=protocol,
                   protocol_detail=protocol)  # fmt: skip


def test_overall_protocol() -> None:
    assert overall_protocol([verdict("")]) == ""
    assert overall_protocol([verdict("conforms"), verdict("conforms")]) == "conforms"
    mixed = [verdict("conforms"), verdict("deviates (a/b)"), verdict("deviates (c/d)")]
    assert overall_protocol(mixed) == "deviates (a/b)"
    assert overall_protocol([verdict("conforms"), verdict("not reported")]) == "not reported"
    skipped = [verdict("conforms"), verdict("not reported", "skipped")]
    assert overall_protocol(skipped) == "conforms"  # a skipped trace says nothing


def test_reports_without_the_protocol_level_are_unchanged() -> None:
    md = markdown([verdict("")], "t", [])
    assert "| implementation | verdict | pass |" in md and "protocol" not in md.lower()


def test_conform_exit_rule_and_junit() -> None:
    assert protocol_fails("reference", "deviates (thesis/x)")
    assert not protocol_fails("oracle-python", "not reported")
    assert protocol_fails("cmd:./mine", "not reported")
    assert not protocol_fails("cmd:./mine", "conforms")
    case = verdict_case(verdict("deviates (a/b)"), "s", level="protocol")
    assert case.outcome == "failed" and "a/b" in case.message
    assert verdict_case(verdict("deviates (a/b)"), "s").outcome == "passed"  # delivery level
    assert "protocol: deviates (a/b)" in verdict_case(verdict("deviates (a/b)"), "s").text


def test_conform_shrinks_the_first_deviation_of_each_implementation(tmp_path: Path) -> None:
    from pubsub_spec.conformance.runner import run_traces, shrink_deviations
    from pubsub_spec.conformance.traceio import read_trace

    impl = "cmd:" + broadcast(tmp_path)
    paths = [Path(t) for t in TRACES]
    verdicts = run_traces([impl, "reference"], paths, protocol=True)
    done = shrink_deviations(verdicts, paths, tmp_path / "out", budget=10)
    shrunk = [v for v in done if "protocol_shrunk" in v.extra]
    assert [(v.impl, v.trace_id) for v in shrunk] == [(impl, "uniform-small-0000")]  # first only
    small = read_trace(tmp_path / "out" / shrunk[0].extra["protocol_shrunk"])
    assert len(small.ops) == int(shrunk[0].extra["protocol_shrunk_ops"])
    assert len(small.ops) < len(read_trace(paths[0]).ops)
    md = markdown(done, "t", [])
    assert "smallest trace deviating for the same rule" in md
