"""Signals end runs cleanly (docs/conformance.md, "Guarantees"): SIGTERM/SIGINT to `verify`
stop the program under test and its children and write the report and JSON marked interrupted
(exit 128 + signal); SIGKILL of `verify` or of a process running a built-in leaves no process of
the run alive (parent-death signal and the watchdog of conformance/lifeline.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pubsub_spec.conformance.supervisor import pid_alive

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "conformance" / "examples" / "hostile" / "hostile.py"
GONE_WITHIN = 5.0


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid` (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text(errors="replace")
            except OSError:
                continue
            parent[int(entry)] = int(stat[stat.rfind(")") + 2 :].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parent.items() if p in frontier} - found
        found |= frontier
    return found


def _wait_pids(path: Path, n: int, proc: subprocess.Popen[bytes], limit: float = 60.0) -> set[int]:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if path.exists():
            pids = {int(x) for x in path.read_text().split()}
            if len(pids) >= n:
                return pids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError(f"the program under test did not start within {limit}s")


def _all_gone(pids: set[int], within: float = GONE_WITHIN) -> set[int]:
    end = time.monotonic() + within
    while time.monotonic() < end:
        alive = {p for p in pids if pid_alive(p)}
        if not alive:
            return set()
        time.sleep(0.1)
    return {p for p in pids if pid_alive(p)}


def _start_verify(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """`verify` on the corpus with a program that starts a child and never answers (held by
    long timeouts, so the run is mid-trace when the signal comes)."""
    pids = tmp_path / "pids"
    env = {**os.environ, "HOSTILE_PIDS": str(pids), "HOSTILE_MODE": "family"}
    cmd = [
        sys.executable, "-c", "import sys; from pubsub_spec.cli import main; sys.exit(main())",
        "verify", "--impl", f"{sys.executable} {HOSTILE}", "--op-timeout", "100",
        "--total-timeout", "300", "--report", str(tmp_path / "report"),
        "--json", str(tmp_path / "v.json"), "--junit", str(tmp_path / "v.xml"),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    return proc, pids


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_term_or_int_of_verify_kills_the_program_and_writes_an_interrupted_report(
    tmp_path: Path, signum: int
) -> None:
    proc, pids_file = _start_verify(tmp_path)
    program = _wait_pids(pids_file, 2, proc)  # the program and its child
    family = program | _descendants(proc.pid)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err.decode()
    assert b"Traceback" not in err and b"interrupted by" in err
    assert not _all_gone(family)
    body = json.loads((tmp_path / "v.json").read_text())
    assert body["interrupted"] == signal.Signals(signum).name
    assert body["exit_code"] == 128 + signum
    report = (tmp_path / "report" / "report.md").read_text()
    assert "Interrupted" in report and "(interrupted)" in report
    assert (tmp_path / "v.xml").exists()


def test_kill_of_verify_leaves_no_process_of_the_run(tmp_path: Path) -> None:
    proc, pids_file = _start_verify(tmp_path)
    program = _wait_pids(pids_file, 2, proc)
    family = program | _descendants(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert not _all_gone(family), "processes of the run outlived SIGKILL of verify"


BUILTIN = """
import sys, time
from pubsub_spec.conformance.isolate import run_isolated
from pubsub_spec.conformance.supervisor import Limits
from pubsub_spec.reference.common.ops import Trace

def forever(trace):
    import os, subprocess
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(os.getpid(), child.pid, flush=True)
    time.sleep(600)

run_isolated(forever, None, Limits(total_timeout=600))
"""


def test_kill_of_a_process_running_a_builtin_kills_its_worker(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", BUILTIN], stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    worker, grandchild = (int(x) for x in proc.stdout.readline().split())
    assert pid_alive(worker) and pid_alive(grandchild)
    time.sleep(0.3)  # the parent has recorded the worker's group (a few instructions after fork)
    proc.kill()
    proc.wait(timeout=30)
    assert not _all_gone({worker, grandchild}), "the built-in's worker outlived its parent"
