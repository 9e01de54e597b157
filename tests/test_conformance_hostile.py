"""The hostile kit (conformance/examples/hostile/hostile.py): each hostile program
gets its verdict, the run ends within its configured limits (plus a generous slack: the bound is
the limit, never a tight timing), and no process it started survives. Also: the suite's own
SIGINT/SIGTERM kills the program's group, and built-ins run under the same limits."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pubsub_spec.conformance.adapter import run_outside
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.impls import Implementation, register
from pubsub_spec.conformance.runner import run_one
from pubsub_spec.conformance.supervisor import MIB, Limits, group_alive, pid_alive
from pubsub_spec.conformance.traceio import expected_lines, trace_to_lines
from pubsub_spec.reference.common.model import Attribute, Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries

HOSTILE = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "hostile"
TRACE = GENERATORS["uniform"](1, 0, "tiny")
TEXT = "\n".join(trace_to_lines(TRACE))
EXPECTED = "\n".join(expected_lines(TRACE, expected_deliveries(TRACE)))
LIMITS = Limits(
    op_timeout=1.0, init_timeout=1.0, total_timeout=3.0, end_grace=0.3,
    max_line_bytes=64 * 1024, max_lines_per_op=10_000, max_total_bytes=4 * MIB,
    stderr_tail_bytes=1024,
)  # fmt: skip
SLACK = 15.0  # seconds beyond the limit: a loaded 2-core CI machine, never a tight timing
# Where the verdict does not come from a timeout, the program is given ample time to
# start (a Python start-up on a loaded machine can take seconds): only the limit under test is
# tight.
STARTS = dataclasses.replace(LIMITS, init_timeout=30.0, op_timeout=10.0, total_timeout=60.0)


def command(mode: str) -> str:
    return f"{sys.executable} {HOSTILE / 'hostile.py'} --mode {mode}"


def wait_gone(pids: list[int], polls: int = 300) -> list[int]:
    """The pids still alive after up to `polls` short sleeps (SIGKILL is asynchronous)."""
    left = list(pids)
    for _ in range(polls):
        left = [p for p in left if pid_alive(p) or group_alive(p)]
        if not left:
            break
        time.sleep(0.01)
    return left


def pids_of(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def big_header_trace() -> Trace:
    """A valid-looking trace whose init request is larger than a pipe buffer (64 KiB)."""
    attrs = tuple(Attribute(f"attribute{i:05d}", "float", 0.0, 1.0) for i in range(4000))
    return dataclasses.replace(TRACE, schemas=(*TRACE.schemas, Schema("wide", attrs)))


@pytest.mark.parametrize(
    ("mode", "verdict", "kind", "words", "limits"),
    [
        ("flood", "fail", "output-limit", "more than 10000 output lines", STARTS),
        ("stderr-flood", "unknown", "timeout", "timeout after 1s waiting for init", LIMITS),
        ("silent", "unknown", "timeout", "waiting for init", LIMITS),
        ("grandchild", "ok", "", "", STARTS),
        ("orphan", "fail", "crash", "a child of it keeps its output open", STARTS),
        ("family", "unknown", "timeout", "timeout after 1s waiting for init", LIMITS),
        ("huge-number", "fail", "protocol", "protocol error at output line 2", STARTS),
        ("deep", "fail", "protocol", "protocol error at output line 2", STARTS),
        ("garbage", "fail", "protocol", "longer than 65536 bytes", STARTS),
        ("slow", "unknown", "timeout", "overall timeout of 3s reached", LIMITS),
        ("no-exit", "ok", "", "", STARTS),
        ("cpu", "unknown", "timeout", "CPU limit of 1s", dataclasses.replace(LIMITS, cpu_seconds=1,
                                                                            init_timeout=30.0,
                                                                            total_timeout=30.0)),
        ("memory", "fail", "crash", "crashed", dataclasses.replace(LIMITS, memory_bytes=400 * MIB,
                                                                   init_timeout=30.0,
                                                                   total_timeout=30.0)),
    ],
)  # fmt: skip
def test_hostile_program_gets_its_verdict_in_time_and_leaves_no_process(
    tmp_path: Path, mode: str, verdict: str, kind: str, words: str, limits: Limits
) -> None:
    pidfile = tmp_path / "pids"
    os.environ["HOSTILE_PIDS"] = str(pidfile)
    try:
        started = time.monotonic()
        out = run_outside(command(mode), TRACE, limits=limits)
        elapsed = time.monotonic() - started
    finally:
        del os.environ["HOSTILE_PIDS"]
    assert (out.verdict, out.kind) == (verdict, kind), out.reason
    assert words in out.reason, out.reason
    if verdict == "ok":
        assert sorted(out.deliveries) == expected_deliveries(TRACE)
    assert elapsed < limits.total_timeout + limits.end_grace + SLACK
    pids = pids_of(pidfile)
    assert pids, "the hostile program did not start"
    assert wait_gone(pids) == [], f"processes left: {pids}"
    if mode in ("grandchild", "orphan", "family"):
        assert len(pids) == 2  # the program and the child it started: both gone


def test_a_program_that_does_not_read_cannot_block_the_write(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    os.environ["HOSTILE_PIDS"] = str(pidfile)
    try:
        started = time.monotonic()
        out = run_outside(command("no-read"), big_header_trace(), limits=LIMITS)
        elapsed = time.monotonic() - started
    finally:
        del os.environ["HOSTILE_PIDS"]
    assert (out.verdict, out.kind) == ("unknown", "timeout"), out.reason
    assert "sending init (the program does not read its input)" in out.reason
    assert elapsed < LIMITS.total_timeout + SLACK
    assert wait_gone(pids_of(pidfile)) == []


def test_stderr_is_kept_as_a_bounded_tail(tmp_path: Path) -> None:
    out = run_outside(command("stderr-flood"), TRACE, limits=LIMITS)
    quoted = out.reason.split("(stderr: ", 1)[1]
    assert set(quoted.rstrip(")")) == {"x"} and len(quoted) <= 201  # last line, cut at 200


def test_hostile_program_under_run_one_gives_a_verdict_naming_it() -> None:
    v = run_one(f"cmd:{command('flood')}", TEXT, EXPECTED, "t.ndjson", limits=LIMITS)
    assert (v.verdict, v.kind) == ("fail", "output-limit"), v.describe()


SUITE = """
import sys
from pubsub_spec.conformance.adapter import run_outside
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.supervisor import Limits
trace = GENERATORS["uniform"](1, 0, "tiny")
run_outside({cmd!r}, trace, limits=Limits(op_timeout=60, init_timeout=60, total_timeout=60))
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_suite_kills_the_program_group(tmp_path: Path, signum: int) -> None:
    pidfile = tmp_path / "pids"
    env = {**os.environ, "HOSTILE_PIDS": str(pidfile)}
    suite = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SUITE.format(cmd=command("family")))],
        env=env, cwd=Path(__file__).resolve().parent.parent,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(2000):  # the program and its child have started (bounded by count)
            if len(pids_of(pidfile)) == 2:
                break
            time.sleep(0.01)
        pids = pids_of(pidfile)
        assert len(pids) == 2 and all(pid_alive(p) for p in pids)
        suite.send_signal(signum)
        assert suite.wait(timeout=30) != 0
        assert wait_gone(pids) == [], f"left behind: {pids}"
    finally:
        if suite.poll() is None:
            suite.kill()
            suite.wait()


def _sleeps_forever(trace: Trace) -> list[Delivery]:
    note = os.environ.get("HOSTILE_PIDS")
    if note:
        Path(note).write_text(f"{os.getpid()}\n")
    while True:
        time.sleep(1)


def _returns_garbage(trace: Trace) -> list[Delivery]:
    raise RecursionError("maximum recursion depth exceeded")


def test_a_builtin_that_never_finishes_is_unknown_timeout_and_killed(tmp_path: Path) -> None:
    register(Implementation("test-sleeps-forever", _sleeps_forever))
    pidfile = tmp_path / "pids"
    os.environ["HOSTILE_PIDS"] = str(pidfile)
    try:
        started = time.monotonic()
        v = run_one("test-sleeps-forever", TEXT, EXPECTED, "t.ndjson", total_timeout=1.0)
        elapsed = time.monotonic() - started
    finally:
        del os.environ["HOSTILE_PIDS"]
    assert (v.verdict, v.kind) == ("unknown", "timeout"), v.describe()
    assert "did not finish within the total timeout of 1s" in v.reason
    assert elapsed < 1.0 + SLACK
    pids = pids_of(pidfile)
    assert pids and wait_gone(pids) == []


def test_a_pathological_valid_trace_times_out_a_builtin_and_the_batch_goes_on() -> None:
    """A valid trace the reference takes long on (many ops) under a tiny total timeout."""
    big = GENERATORS["zipf"](1, 0, "medium")
    text = "\n".join(trace_to_lines(big))
    v = run_one("reference", text, None, "big.ndjson", total_timeout=0.05)
    assert (v.verdict, v.kind) == ("unknown", "timeout"), v.describe()
    w = run_one("oracle-python", TEXT, EXPECTED, "t.ndjson")
    assert w.verdict == "pass", w.describe()


def test_a_builtin_crash_in_the_worker_fails_naming_it() -> None:
    register(Implementation("test-recursion", _returns_garbage))
    v = run_one("test-recursion", TEXT, EXPECTED, "t.ndjson")
    assert (v.verdict, v.kind) == ("fail", "crash") and "RecursionError" in v.reason, v.describe()
