"""`pubsub-spec conform --ops N` at growing N: ops per minute and the peak memory of
the driver (its Python process and its JVM), of the largest executor JVM (in local mode the
driver's JVM, which runs the executors) and of the largest executor Python worker, per stage,
on local[2] and on the loopback standalone cluster (conformance/cluster.py: master and worker
started by the project's own code). Each run is a fresh `conform` process, so no size
inherits another's memory. Prints figures; asserts nothing. 10^7 ops only with --full (some
8 minutes per master on 2 cores). By default each run is `conform --ops N` as a user types
it (every built-in: the fast ones on every trace, the simulators on their shared sample, the
Python oracle's cross-check); `--impls` narrows it.

Run: python -m benchmarks.bench_conformance_scale [--sizes 100000,1000000] [--full]
     [--no-cluster] [--impls LIST] [--profile medium]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def conform(
    ops: int, out: Path, impls: str | None, profile: str, master: str | None
) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    report = out / "run.json"
    cmd = [
        sys.executable, "-m", "pubsub_spec.cli", "conform", "--ops", str(ops), "--out",
        str(out), "--profile", profile, "--json", str(report), "--no-shrink",
    ]  # fmt: skip
    if impls:
        cmd += ["--impls", impls]
    if master:
        cmd += ["--master", master]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if not report.is_file():
        raise RuntimeError(f"conform --ops {ops} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    body: dict[str, Any] = json.loads(report.read_text())
    body["wall"] = wall
    return body


def show(where: str, body: dict[str, Any]) -> None:
    impls = ", ".join(
        f"{i['impl']} {i['verdict']} on {i['traces']} ({i['fraction']:.3g})"
        for i in body["implementations"]
    )
    print(
        f"{where:<10}{body['ops']:>10}{body['traces']:>8}{body['seconds']:>9.1f}"
        f"{body['ops_per_minute']:>12,}  exit {body['exit_code']}  {impls}"
    )
    for s in body["stages"]:
        ex = s.get("executor_jvm_peak_mb", 0.0)
        print(
            f"{'':<18}stage {s['name']:<16}{s['seconds']:>8.1f} s  driver "
            f"{s['driver_peak_mb']:>5.0f} MB  driver JVM {s['driver_jvm_peak_mb']:>5.0f} MB  "
            f"executor JVM {ex:>5.0f} MB  worker {s['worker_peak_mb']:>4.0f} MB"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="100000,1000000", help="comma-separated op counts")
    ap.add_argument("--full", action="store_true", help="also 10^7 ops")
    ap.add_argument("--no-cluster", action="store_true", help="local[2] only")
    ap.add_argument("--impls", default=None, help="default: conform's own (every built-in)")
    ap.add_argument("--profile", default="medium")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s] + ([10_000_000] if args.full else [])
    print(f"{'master':<10}{'ops':>10}{'traces':>8}{'seconds':>9}{'ops/min':>12}")
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        base = Path(tmp)
        for n in sizes:
            show("local[2]", conform(n, base / f"local-{n}", args.impls, args.profile, None))
        if args.no_cluster:
            return
        from pubsub_spec.conformance.cluster import start_cluster

        cluster = start_cluster(base / "logs")
        try:
            for n in sizes:
                body = conform(n, base / f"cluster-{n}", args.impls, args.profile, cluster.url)
                show("cluster", body)
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()
