"""Outside implementations over the NDJSON protocol: the Go example passes, the faulty example
is flagged for the right reason each time, naming the op or the output line, and nothing a
program does stops the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pubsub_spec.conformance.adapter import run_outside, split_command
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.runner import run_one
from pubsub_spec.conformance.traceio import expected_lines, trace_to_lines
from pubsub_spec.reference.common.oracle import expected_deliveries

EXAMPLES = Path(__file__).resolve().parent.parent / "conformance" / "examples"
TRACE = GENERATORS["churn"](1, 0, "small")
TEXT = "\n".join(trace_to_lines(TRACE))
EXPECTED = "\n".join(expected_lines(TRACE, expected_deliveries(TRACE)))


def faulty(mode: str, *extra: str) -> str:
    return f"cmd:{sys.executable} {EXAMPLES / 'faulty.py'} --mode {mode} {' '.join(extra)}"


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "impl.py"
    path.write_text("import json, sys\n" + body)
    return f"cmd:{sys.executable} {path}"


def test_go_example_passes(tmp_path: Path) -> None:
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed: the Go example cannot be built")
    binary = tmp_path / "bruteforce"
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=EXAMPLES / "go-bruteforce",
        check=True,
        env=env,
        capture_output=True,
    )
    v = run_one(f"cmd:{binary}", TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "pass" and v.checked > 0, v.describe()
    lenient = GENERATORS["partial-lenient"](1, 0, "small")
    text = "\n".join(trace_to_lines(lenient))
    v = run_one(f"cmd:{binary}", text, None, "l.ndjson")
    assert v.verdict == "pass" and v.expected > 0, v.describe()


def test_python_example_without_fault_passes() -> None:
    v = run_one(faulty("none"), TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "pass" and v.checked == 40, v.describe()


@pytest.mark.parametrize(
    ("mode", "verdict", "kind", "words"),
    [
        ("drop", "fail", "deliveries", "1 missing: (e"),
        ("twice", "fail", "deliveries", "1 duplicate: (e"),
        ("spurious", "fail", "deliveries", "1 spurious: (e"),
        ("hang", "unknown", "timeout", "timeout after 1s waiting for op seq 5 (subscribe, trace"),
        ("crash", "fail", "crash", "crashed (exit 7) during op seq 5 (subscribe, trace line 6)"),
        ("garbage", "fail", "protocol", "protocol error at output line 6 (while waiting for op"),
        ("wrong-ack", "fail", "protocol", 'unexpected reply {"type": "ack", "seq": 1005}'),
        ("error-definite", "fail", "error", "code 'abort', certainly did not happen"),
        ("error-indefinite", "unknown", "error", "code 'timeout', may have happened"),
    ],
)
def test_faulty_example_is_flagged_for_the_right_reason(
    mode: str, verdict: str, kind: str, words: str
) -> None:
    v = run_one(faulty(mode), TEXT, EXPECTED, "t.ndjson", op_timeout=1.0)
    assert (v.verdict, v.kind) == (verdict, kind) and words in v.describe(), v.describe()
    if kind == "deliveries":
        assert not v.reason and (v.missing or v.duplicate or v.spurious)


def test_the_fault_can_be_chosen_by_environment_variable() -> None:
    v = run_one(
        f"cmd:PUBSUB_FAULT=crash PUBSUB_FAULT_AT=3 {sys.executable} {EXAMPLES / 'faulty.py'}",
        TEXT,
        EXPECTED,
        "t.ndjson",
    )
    assert v.verdict == "fail" and "crashed (exit 7) during op seq 3" in v.reason, v.describe()
    assert "stderr: faulty: crashing on purpose at op seq 3" in v.reason


def test_a_chatty_stderr_does_not_block_the_run() -> None:
    assert run_one(faulty("chatty"), TEXT, EXPECTED, "t.ndjson").verdict == "pass"


def test_missing_feature_is_skipped_with_reason(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "for l in sys.stdin:\n"
        "    print(json.dumps({'type':'init_ok','features':['strict']}),flush=True)\n"
        "    break\n",
    )
    v = run_one(cmd, TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "skipped" and v.kind == "feature" and "churn" in v.reason


def test_a_program_that_cannot_start_fails(tmp_path: Path) -> None:
    v = run_one(f"cmd:{tmp_path / 'no-such-program'}", TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "fail" and v.kind == "start" and "cannot start" in v.reason


def test_exit_without_answering_names_init(tmp_path: Path) -> None:
    v = run_one(script(tmp_path, "sys.exit(0)\n"), TEXT, EXPECTED, "t.ndjson")
    assert v.verdict == "fail" and "exited (status 0) without answering during init" in v.reason


def test_bytes_that_are_not_utf8_are_a_protocol_error(tmp_path: Path) -> None:
    cmd = script(tmp_path, "sys.stdin.readline()\nsys.stdout.buffer.write(b'\\xff\\xfe\\n')\n")
    v = run_one(cmd, TEXT, EXPECTED, "t.ndjson")
    assert v.kind == "protocol" and "output line 1 (while waiting for init): not UTF-8" in v.reason


def test_a_delivery_before_init_ok_is_a_protocol_error(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "sys.stdin.readline()\n"
        "print(json.dumps({'type':'deliver','event':'e1','sub':'s1'}), flush=True)\n",
    )
    v = run_one(cmd, TEXT, EXPECTED, "t.ndjson")
    assert v.kind == "protocol" and "while waiting for init" in v.reason


def test_overall_timeout_is_named(tmp_path: Path) -> None:
    slow = script(
        tmp_path,
        "import time\n"
        "for l in sys.stdin:\n"
        "    m = json.loads(l)\n"
        "    if m['type'] == 'init':\n"
        "        print(json.dumps({'type':'init_ok','features':['strict','lenient','churn',"
        "'multi-schema']}), flush=True)\n"
        "    else:\n"
        "        time.sleep(0.3)\n"
        "        print(json.dumps({'type':'ack','seq':m['seq']}), flush=True)\n",
    )
    out = run_outside(slow[4:], TRACE, op_timeout=2.0, total_timeout=1.0)
    assert out.verdict == "unknown" and out.kind == "timeout"
    assert out.reason.startswith("overall timeout of 1s reached waiting for op seq"), out.reason


def test_split_command_takes_leading_environment_assignments() -> None:
    assert split_command("A=1 B='x y' prog --flag 'two words'") == (
        ["prog", "--flag", "two words"],
        {"A": "1", "B": "x y"},
    )
    with pytest.raises(ValueError, match="no program"):
        split_command("A=1")


def test_a_bad_trace_becomes_a_skipped_verdict_naming_the_line() -> None:
    bad = TEXT.replace('"op":"publish"', '"op":"publsh"', 1)
    v = run_one("reference", bad, EXPECTED, "bad.ndjson")
    assert v.verdict == "skipped" and "bad.ndjson line" in v.reason and "unknown op" in v.reason
