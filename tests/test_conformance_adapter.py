"""Outside implementations over the NDJSON protocol: the Go example passes, the faulty example
is flagged for the right reason each time, naming the op or the output line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.generators import GENERATORS
from conformance.runner import run_one
from conformance.traceio import expected_lines, trace_to_lines
from reference.oracle import expected_deliveries

EXAMPLES = Path(__file__).resolve().parent.parent / "conformance" / "examples"
TRACE = GENERATORS["churn"](1, 0, "small")
TEXT = "\n".join(trace_to_lines(TRACE))
EXPECTED = "\n".join(expected_lines(TRACE, expected_deliveries(TRACE)))


def faulty(mode: str) -> str:
    return f"cmd:{sys.executable} {EXAMPLES / 'faulty.py'} --mode {mode}"


def test_go_example_passes(tmp_path: Path) -> None:
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed: the Go example cannot be built")
    binary = tmp_path / "bruteforce"
    subprocess.run(
        [go, "build", "-o", str(binary), "."], cwd=EXAMPLES / "go-bruteforce", check=True
    )
    v = run_one(f"cmd:{binary}", TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "pass" and v.checked > 0, v.describe()


def test_python_example_without_fault_passes() -> None:
    assert run_one(faulty("none"), TEXT, EXPECTED, "t.ndjson").verdict == "pass"


@pytest.mark.parametrize(
    ("mode", "verdict", "words"),
    [
        ("drop", "fail", "1 missing: (e"),
        ("twice", "fail", "1 duplicate: (e"),
        ("hang", "unknown", "timeout after 1s waiting for op seq"),
        ("crash", "fail", "crashed (exit 7) during op seq"),
        ("garbage", "fail", "protocol error at output line"),
    ],
)
def test_faulty_example_is_flagged_for_the_right_reason(
    mode: str, verdict: str, words: str
) -> None:
    v = run_one(faulty(mode), TEXT, EXPECTED, "t.ndjson", op_timeout=1.0)
    assert v.verdict == verdict and words in v.describe(), v.describe()


def test_missing_feature_is_skipped_with_reason(tmp_path: Path) -> None:
    script = tmp_path / "strict_only.py"
    script.write_text(
        "import json,sys\n"
        "for l in sys.stdin:\n"
        "    m=json.loads(l)\n"
        "    print(json.dumps({'type':'init_ok','features':['strict']}),flush=True)\n"
        "    break\n"
    )
    v = run_one(f"cmd:{sys.executable} {script}", TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "skipped" and "churn" in v.reason


def test_a_bad_trace_becomes_a_skipped_verdict_naming_the_line() -> None:
    bad = TEXT.replace('"op":"publish"', '"op":"publsh"', 1)
    v = run_one("reference", bad, EXPECTED, "bad.ndjson")
    assert v.verdict == "skipped" and "bad.ndjson line" in v.reason and "unknown op" in v.reason
