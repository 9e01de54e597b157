"""The thesis simulator at full scale (docs/thesis.md, "Speed"), measured in one run, each point
in a child process of its own (wall time, CPU time and peak memory from os.wait4's rusage):

- Table 4.1: `simulate --preset thesis --nodes 1000 --subs-per-node 5 --events 10000 --seed 1`
  on the fast engine (the handlers on reference/thesis/substrate_fast.py; target <= 20 s CPU),
- the same on the reference engine (`--engine reference`; no target): the speed-up of the fast
  engine, and the check that both print the same event-log hash (the same run, bit for bit),
- the 5000-node point of thesis §4.3.3: Table 4.1 with `--nodes 5000` (target <= 120 s CPU,
  <= 1.5 GB peak RSS),
- `figures --scale full --jobs 2` (target < 15 minutes of wall time).

Targets on simulations are CPU seconds (the machine may be shared: wall time exceeds CPU time
under load); wall time and the load average are printed beside.
Run: python -m benchmarks.bench_thesis_speed [--quick] [--only table,reference,5000,figures]
(--quick: a tenth of the events and `figures --scale small`, to try the script).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    key: str
    label: str
    args: list[str]
    max_secs: float
    max_mib: float | None
    cpu: bool = True  # the time target is CPU seconds (else wall seconds)


@dataclass(frozen=True)
class Measured:
    secs: float
    cpu_secs: float
    peak_mib: float
    last: str
    code: int
    hash_line: str  # simulate's "simulated time: ...; event-log hash ..." line, if any


def measure(args: list[str]) -> Measured:
    """Run `pubsub-spec ARGS` in a child; its own rusage, not the sum over all children."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pubsub_spec.cli", *args], stdout=out, stderr=err
        )
        _, status, ru = os.wait4(proc.pid, 0)
        secs = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        lines = out.read().strip().splitlines() or err.read().strip().splitlines()[-1:] or [""]
    hashes = [ln for ln in lines if "event-log hash" in ln]
    return Measured(
        secs,
        ru.ru_utime + ru.ru_stime,
        ru.ru_maxrss / 1024,
        lines[-1],
        proc.returncode,
        hashes[0] if hashes else "",
    )


def points(quick: bool, out_dir: str) -> list[Point]:
    events = "1000" if quick else "10000"
    sim = ["simulate", "--preset", "thesis", "--subs-per-node", "5", "--events", events]
    sim += ["--seed", "1"]
    table = [*sim, "--nodes", "1000"]
    return [
        Point("table", f"Table 4.1 (1000 x 5 x {events})", [*table, "--engine", "fast"], 20, None),
        Point(
            "reference", "  the same, reference engine", [*table, "--engine", "reference"], 0, None
        ),
        Point(
            "5000", f"5000 x 5 x {events}", [*sim, "--nodes", "5000", "--engine", "fast"], 120, 1536
        ),
        Point(
            "figures",
            "figures --scale " + ("small" if quick else "full"),
            ["figures", "--scale", "small" if quick else "full", "--jobs", "2", "--out", out_dir],
            900,
            None,
            cpu=False,
        ),
    ]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default="table,reference,5000,figures")
    a = p.parse_args()
    only = a.only.split(",")
    code = 0
    with tempfile.TemporaryDirectory() as out_dir:
        print(f"cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.1f}")
        print(f"{'point':<28}{'wall s':>9}{'cpu s':>9}{'peak MiB':>10}  targets")
        done: dict[str, Measured] = {}
        for pt in points(a.quick, out_dir):
            if pt.key not in only:
                continue
            m = done[pt.key] = measure(pt.args)
            verdict = ""
            if pt.max_secs:
                secs, what = (m.cpu_secs, "CPU") if pt.cpu else (m.secs, "wall")
                ok_s = secs <= pt.max_secs
                verdict = f"<= {pt.max_secs:.0f} s {what}: {'met' if ok_s else 'missed'}"
            if pt.max_mib is not None:
                ok_m = m.peak_mib <= pt.max_mib
                verdict += f", <= {pt.max_mib:.0f} MiB: {'met' if ok_m else 'missed'}"
            print(f"{pt.label:<28}{m.secs:>9.1f}{m.cpu_secs:>9.1f}{m.peak_mib:>10.0f}  {verdict}")
            print(f"    {m.last}  (exit {m.code}; load average {os.getloadavg()[0]:.1f})")
            code = max(code, m.code)
        if "table" in done and "reference" in done:
            fast, ref = done["table"], done["reference"]
            same = fast.hash_line == ref.hash_line != ""
            print(f"fast engine: {ref.cpu_secs / fast.cpu_secs:.2f}x the reference's speed (CPU)")
            print(f"same run (event-log hash): {'yes' if same else 'NO'}; {fast.hash_line}")
            code = max(code, 0 if same else 1)
    return code


if __name__ == "__main__":
    sys.exit(main())
