"""Signals end `simulate` and `figures` cleanly (docs/conformance.md, "Guarantees"): SIGINT and
SIGTERM give one line and exit 128 + signal, no traceback; the figure workers (`--jobs`) die
with the command, SIGKILL included (conformance/lifeline.py's WorkerPool)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_reliability_signals import _all_gone, _descendants

CLI = [sys.executable, "-c", "import sys; from pubsub_spec.cli import main; sys.exit(main())"]


def _start(args: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*CLI, *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip


def _wait_handler(proc: subprocess.Popen[bytes], limit: float = 60.0) -> None:
    """Until the command catches SIGTERM (its handler is installed once it is under way)."""
    bit = 1 << (signal.SIGTERM - 1)
    end = time.monotonic() + limit
    while time.monotonic() < end:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        caught = next(ln for ln in status.splitlines() if ln.startswith("SigCgt:"))
        if int(caught.split()[1], 16) & bit:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no SIGTERM handler after {limit}s")


def _wait_children(proc: subprocess.Popen[bytes], n: int, limit: float = 60.0) -> set[int]:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        found = _descendants(proc.pid)
        if len(found) >= n:
            return found
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError(f"fewer than {n} workers after {limit}s")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_simulate_with_its_exit_code_and_no_traceback(
    tmp_path: Path, signum: int
) -> None:
    proc = _start(["simulate", "--nodes", "2000", "--events", "50000"], tmp_path)
    _wait_handler(proc)
    time.sleep(0.5)  # inside the run (minutes long)
    assert proc.poll() is None
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err.decode()[-2000:]
    text = err.decode()
    assert "Traceback" not in text and f"interrupted by {signal.Signals(signum).name}" in text


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_figures_workers_die_with_the_command(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "figs"
    proc = _start(["figures", "--scale", "full", "--jobs", "2", "--out", str(out)], tmp_path)
    workers = _wait_children(proc, 2)
    _wait_handler(proc)
    time.sleep(1.0)  # the workers are in their runs (each takes minutes)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    text = err.decode()[-2000:]
    if signum == signal.SIGKILL:
        assert proc.returncode == -signum
    else:
        assert proc.returncode == 128 + signum, text
        assert "Traceback" not in text and "interrupted by SIGTERM" in text, text
    left = _all_gone(workers)
    assert not left, f"figure workers alive 5 s after the command ended: {left}"
