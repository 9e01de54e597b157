"""`pubsub-spec conform --ops N` at growing N: ops per minute and the peak memory of
the driver (its Python process and its JVM), of the largest executor JVM (in local mode the
driver's JVM, which runs the executors) and of the largest executor Python worker, per stage,
on local[2] and on the loopback standalone cluster (conformance/cluster.py: master and worker
started by the project's own code). Each run is a fresh `conform` process, so no size
inherits another's memory. Prints figures; asserts nothing. 10^7 ops only with --full (some
8 minutes per master on 2 cores). By default each run is `conform --ops N` as a user types
it (every built-in: the fast ones on every trace, the simulators on their shared sample, the
Python oracle's cross-check); `--impls` narrows it.

`--components N` prints instead where a run's CPU goes, measured in this one process on the
first N ops of the same round-robin trace set (each trace made, turned to rows and run in turn,
then dropped, as a Spark task does, with the collector's threshold of a task and Arrow's one-time
set-up paid before measuring, as in a reused worker): per op, generation, Parquet rows,
writing them, each fast built-in on every trace, `oracle-python`, and each simulator on one
trace of every generator (their sample at scale); the oracle stage is Spark's, in the stage
lines of a `conform` run.

Run: python -m benchmarks.bench_conformance_scale [--sizes 100000,1000000] [--full]
     [--no-cluster] [--impls LIST] [--profile medium] [--components N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def components(ops: int, profile: str) -> None:
    """Per-op CPU of each part of a run's work, in this process (module doc)."""
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.conformance.impls import builtin
    from pubsub_spec.conformance.observed import few_collections
    from pubsub_spec.conformance.parquet import OPS_TABLE, rows_from_trace
    from pubsub_spec.conformance.scale.planning import plan
    from pubsub_spec.conformance.scale.sampling import CROSS_CHECK, FAST, is_slow
    from pubsub_spec.conformance.scale.sink import ParquetSink
    from pubsub_spec.reference.sim.system import missing_features

    impls = builtin()
    p = plan(ops, tuple(GENERATORS), profile, 1)
    fast = [impls[n] for n in FAST]
    for impl in fast:  # compiled kernels: compile before measuring
        fp = impl.fingerprint
        assert fp is not None
        fp(GENERATORS["uniform"](p.seed, 0, "tiny"))
    spent: dict[str, float] = {}
    counted: dict[str, int] = {}

    def add(what: str, seconds: float, n: int) -> None:
        spent[what] = spent.get(what, 0.0) + seconds
        counted[what] = counted.get(what, 0) + n

    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-components-") as tmp, few_collections():
        # a Spark worker is reused from task to task: Arrow's one-time set-up (some 0.3 CPU-s,
        # once per worker) is paid here before measuring, as the collector's threshold is
        # raised as in a task (executor.run_partition)
        warm = ParquetSink(Path(tmp) / "warm.parquet", OPS_TABLE)
        for k in range(10):
            warm.add(rows_from_trace(GENERATORS["uniform"](p.seed + 1, k, profile))[1])
        warm.close()
        sink = ParquetSink(Path(tmp) / "ops.parquet", OPS_TABLE)
        slow = [n for n in impls if is_slow(n) and n != CROSS_CHECK]
        for number in range(p.traces):
            gen, index = p.task(number)
            t0 = cpu()
            trace = GENERATORS[gen](p.seed, index, profile)
            t1 = cpu()
            _, rows = rows_from_trace(trace)
            t2 = cpu()
            sink.add(rows)
            t3 = cpu()
            n = len(trace.ops)
            add("generation", t1 - t0, n)
            add("Parquet rows", t2 - t1, n)
            add("Parquet write", t3 - t2, n)
            for impl in fast:
                fp = impl.fingerprint
                assert fp is not None
                t = cpu()
                fp(trace)
                add(impl.name, cpu() - t, n)
            t = cpu()
            impls[CROSS_CHECK].run(trace)
            add(CROSS_CHECK, cpu() - t, n)
            if index == 0:  # one trace of every generator: the simulators' sample at scale
                for name in slow:
                    if missing_features(trace, impls[name].features):
                        continue
                    t = cpu()
                    impls[name].run(trace)
                    add(name, cpu() - t, n)
        t = cpu()
        sink.close()
        add("Parquet write", cpu() - t, 0)
    print(f"{p.estimated_ops} ops (estimated) in {p.traces} traces, profile {profile}, CPU per op:")
    for what, seconds in spent.items():
        per = 1000 * seconds / max(1, counted[what])
        print(f"  {what:<22}{per:>9.4f} ms/op  {seconds:>8.2f} CPU-s over {counted[what]:>8} ops")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="100000,1000000", help="comma-separated op counts")
    ap.add_argument("--full", action="store_true", help="also 10^7 ops")
    ap.add_argument("--no-cluster", action="store_true", help="local[2] only")
    ap.add_argument("--impls", default=None, help="default: conform's own (every built-in)")
    ap.add_argument("--profile", default="medium")
    ap.add_argument("--components", type=int, default=0, metavar="N",
                    help="per-component CPU per op on N ops, in process (no conform runs)")
    args = ap.parse_args()
    if args.components:
        components(args.components, args.profile)
        return
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
