"""`pubsub-spec conform --ops N` with and without the protocol level (`--level protocol`,
conformance/OBSERVATIONS.md): the time of each run, their ratio, the CPU of each run's
generate+run stage, where the protocol is judged (`run_cpu` of its report: the executors'
Python workers and the runs they isolate; on a shared machine the wall time says little) and
its ratio, the load average, and the peak memory of the driver per stage, so that the cost
of judging the protocol in the executors shows. Each run is a fresh `conform` process on
local[2]. Prints figures; asserts nothing.

Run: python -m benchmarks.bench_protocol_scale [--sizes 5000,100000] [--impls LIST]
     [--profile medium]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def conform(ops: int, out: Path, impls: str | None, profile: str, level: str) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    report = out / "run.json"
    cmd = [
        sys.executable, "-m", "pubsub_spec.cli", "conform", "--ops", str(ops), "--out",
        str(out), "--profile", profile, "--json", str(report), "--no-shrink", "--level", level,
    ]  # fmt: skip
    if impls:
        cmd += ["--impls", impls]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if not report.is_file():
        raise RuntimeError(f"conform --ops {ops} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    body: dict[str, Any] = json.loads(report.read_text())
    body["wall"] = wall
    body["cpu"] = body.get("run_cpu", 0.0)
    return body


def peak_driver(body: dict[str, Any]) -> float:
    return max((s["driver_peak_mb"] for s in body["stages"]), default=0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="5000", help="comma-separated op counts")
    ap.add_argument("--impls", default=None, help="default: conform's own (every built-in)")
    ap.add_argument("--profile", default="medium")
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'ops':>10}{'traces':>8}{'delivery s':>12}{'protocol s':>12}{'ratio':>7}"
          f"{'run CPU s':>11}{'(protocol)':>11}{'ratio':>7}"
          f"{'driver MB':>11}{'(protocol)':>11}  protocol level per implementation")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-protocol-") as tmp:
        for n in (int(s) for s in args.sizes.split(",") if s):
            plain = conform(n, Path(tmp) / f"d-{n}", args.impls, args.profile, "delivery")
            judged = conform(n, Path(tmp) / f"p-{n}", args.impls, args.profile, "protocol")
            levels = ", ".join(
                f"{i['impl']} {i['protocol'] or '-'}" for i in judged["implementations"]
            )
            ratio = judged["seconds"] / plain["seconds"] if plain["seconds"] else 0.0
            cpu_ratio = judged["cpu"] / plain["cpu"] if plain["cpu"] else 0.0
            print(f"{plain['ops']:>10}{plain['traces']:>8}{plain['seconds']:>12.1f}"
                  f"{judged['seconds']:>12.1f}{ratio:>7.2f}{plain['cpu']:>11.1f}"
                  f"{judged['cpu']:>11.1f}{cpu_ratio:>7.2f}{peak_driver(plain):>11.0f}"
                  f"{peak_driver(judged):>11.0f}  {levels}", flush=True)  # fmt: skip
            print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
