"""Exit 2, never a traceback (docs/conformance.md, "Guarantees"), and the smaller defects:
valid JSON accepted whole (U+2028 inside a string), the report's policy line and grid, and
shrunk-trace file names without the program's absolute path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubsub_spec.cli import main as cli
from pubsub_spec.conformance.report import POLICY_NOTE, write_report
from pubsub_spec.conformance.runner import _file_name, run_one
from pubsub_spec.conformance.traceio import ndjson_lines, parse_trace_lines
from pubsub_spec.conformance.verdict import Verdict
from pubsub_spec.reference.common.ops import Publish

ROOT = Path(__file__).resolve().parent.parent
VECTOR = ROOT / "conformance" / "vectors" / "boundaries-tiny-0000.ndjson"


def _code(argv: list[str]) -> int:
    try:
        return cli(argv)
    except SystemExit as e:
        return int(e.code or 0)


def test_bad_paths_and_values_are_exit_2_with_the_place_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "f"
    a_file.write_text("x")
    cases = [
        (["figures", "--out", str(a_file), "--only", "4.1", "--scale", "small"], "--out"),
        (["simulate", "--cutoff", "Attr1=inf", "--nodes", "10", "--events", "5"], "cutoff.Attr1"),
        (["lbdd", "10.0.0.1", "10.0.0.2", "--svg", str(a_file / "t.svg")], "--svg"),
        (["lbdd", "10.0.0.1", "banana"], "not an IP address"),
    ]
    for argv, words in cases:
        assert _code(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
    assert not (a_file / "t.svg").exists() and a_file.read_text() == "x"
    assert _code(["lbdd", "10.0.0.1", "2001:db8::1"]) == 0  # v6 is an address


def test_a_line_separator_inside_a_json_string_is_valid_json() -> None:
    lines = VECTOR.read_text().splitlines()
    n = next(i for i, x in enumerate(lines) if '"publish"' in x)
    publish = json.loads(lines[n])
    publish["id"] = "e\u2028\u2029\x85x"
    lines[n] = json.dumps(publish, ensure_ascii=False)
    text = "\n".join(lines) + "\n"
    trace = parse_trace_lines(ndjson_lines(text), "t.ndjson")
    assert any(isinstance(op, Publish) and op.event.id == publish["id"] for op in trace.ops)
    v = run_one("reference", text, None, "t.ndjson")  # the runner reads it the same way
    assert v.verdict == "pass", v.describe()


def test_the_report_shows_the_policy_as_markdown_and_fits_its_grid(tmp_path: Path) -> None:
    verdicts = [
        Verdict(impl, f"set{k}-tiny-0000", f"set{k}", "pass")
        for impl in ("reference", "cmd:/a/very/long/path/to/the/program --with --flags")
        for k in range(30)
    ]
    write_report(tmp_path, verdicts, "Conformance report", ["Note with `code`."])
    md = (tmp_path / "report.md").read_text()
    assert POLICY_NOTE in md and "\\`" not in md
    page = (tmp_path / "report.html").read_text()
    assert "<code>incomplete</code>" in page and "<code>code</code>" in page
    assert "`" not in page.split("<body>")[1].split("<table")[0]
    assert "<div class='wide'><table class='grid'>" in page and ".wide{max-width:100%" in page


def test_shrunk_trace_names_do_not_embed_the_programs_path() -> None:
    name = _file_name("cmd:/home/someone/secret/dir/prog --mode x")
    assert "home" not in name and "secret" not in name and name.startswith("cmd-prog_--mode_x-")
    other = _file_name("cmd:/elsewhere/prog --mode x")
    assert other != name  # the digest of the whole command tells them apart
    assert _file_name("reference") == "reference"
