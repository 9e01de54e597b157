"""HOSTILE outside implementations: the kit the suite must survive (tested by
tests/test_conformance_hostile.py, each for its verdict, its time bound and no process left).

Standard library only. `--mode` (or HOSTILE_MODE) chooses the misbehaviour; every process it
starts appends its pid to the file named by HOSTILE_PIDS, if set, so a test can check that
none survives the run.

  flood         answers init, then prints valid deliveries forever        -> fail (output-limit)
  stderr-flood  writes stderr forever, without newlines, never answers    -> unknown (timeout)
  silent        reads its input, never answers                            -> unknown (timeout)
  no-read       never reads stdin (a large request cannot be written)     -> unknown (timeout)
  grandchild    starts a child that sleeps holding the pipes, then behaves -> pass, child killed
  orphan        starts such a child, then exits at once                  -> fail (crash)
  family        starts such a child, then never answers                  -> unknown (timeout)
  huge-number   acks with a 5,000-digit integer                              -> fail (protocol)
  deep          answers with JSON nested 20,000 levels                    -> fail (protocol)
  garbage       prints bytes without a newline forever                    -> fail (protocol)
  slow          answers each op after HOSTILE_DELAY seconds (default 0.4)  -> unknown (timeout)
  no-exit       behaves, but ignores SIGTERM and stays after end_ok       -> pass, killed
  cpu           spins without answering (under a CPU rlimit)              -> unknown (timeout)
  memory        allocates without bound (under a memory rlimit)           -> fail (crash)
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

MODES = (
    "flood", "stderr-flood", "silent", "no-read", "grandchild", "orphan", "huge-number", "deep",
    "garbage", "slow", "no-exit", "cpu", "memory", "family",
)  # fmt: skip
INIT_OK = b'{"type":"init_ok","features":["strict","lenient","churn","multi-schema"]}\n'


def note_pid(pid: int) -> None:
    target = os.environ.get("HOSTILE_PIDS")
    if target:
        with open(target, "a", encoding="ascii") as f:
            f.write(f"{pid}\n")


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def sleeper() -> None:
    """A child that inherits stdin/stdout/stderr and sleeps: it keeps the pipes open."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    note_pid(child.pid)


def behave() -> int:
    """The correct implementation of faulty.py, next door."""
    path = Path(__file__).resolve().parent.parent / "faulty.py"
    spec = importlib.util.spec_from_file_location("faulty", path)
    assert spec is not None and spec.loader is not None
    faulty = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(faulty)
    return int(faulty.main(["--mode", "none"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mode", choices=MODES, default=os.environ.get("HOSTILE_MODE", "silent"))
    mode = ap.parse_args(argv).mode
    note_pid(os.getpid())
    if mode == "no-read":
        time.sleep(600)
    if mode == "orphan":
        sleeper()
        return 0
    if mode == "grandchild":
        sleeper()
        return behave()
    if mode == "family":
        sleeper()
        time.sleep(600)
    if mode == "no-exit":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        behave()
        time.sleep(600)
        return 0
    if mode == "stderr-flood":
        while True:
            sys.stderr.write("x" * 65536)
            sys.stderr.flush()
    if mode == "cpu":
        while True:
            pass
    if mode == "memory":
        hog = []
        while True:
            hog.append(bytearray(16 << 20))
    if mode == "garbage":
        while True:
            write(b"\x00garbage" * 8192)
    sys.stdin.readline()  # init
    if mode == "silent":
        for _ in sys.stdin:
            pass
        time.sleep(600)
    write(INIT_OK)
    if mode == "flood":
        sys.stdin.readline()
        line = b'{"type":"deliver","event":"e1","sub":"s1"}\n' * 1000
        while True:
            write(line)
    if mode == "huge-number":
        sys.stdin.readline()
        write(b'{"type":"ack","seq":' + b"9" * 5_000 + b"}\n")
    if mode == "deep":
        sys.stdin.readline()
        write(b"[" * 20_000 + b"]" * 20_000 + b"\n")
    if mode == "slow":
        delay = float(os.environ.get("HOSTILE_DELAY", "0.4"))
        for raw in sys.stdin:
            if b'"type":"end"' in raw.encode():
                write(b'{"type":"end_ok"}\n')
                return 0
            seq = raw.split('"seq":')[1].split(",")[0].split("}")[0]
            time.sleep(delay)
            write(b'{"type":"ack","seq":' + seq.encode() + b"}\n")
    time.sleep(600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
