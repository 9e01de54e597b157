"""`pubsub-spec conform`: the conformance suite. Generates a trace set on Spark (embedded local
mode unless --master names a cluster), computes the expected deliveries with the Spark SQL
oracle, runs the implementations on every trace over Spark partitions, and writes a Markdown and
HTML report. Exit code 1 when any implementation fails (or is unknown: a timeout, an
indefinite error), 2 on a usage error."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from conformance.generators import GENERATORS, PROFILES
from conformance.impls import builtin
from conformance.report import short_label, summary_rows, write_report
from pubsub_spec.argtypes import (
    feature_subset,
    name_list,
    non_empty,
    out_dir,
    positive_int,
    seconds,
    seed_int,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out", type=out_dir, default="out/conformance", help="report and traces go here"
    )
    p.add_argument("--master", default=None, help="Spark master URL (default: local[2])")
    p.add_argument("--count", type=positive_int, default=3, help="traces per generator")
    p.add_argument("--profile", choices=sorted(PROFILES), default="small")
    p.add_argument("--seed", type=seed_int, default=1)
    p.add_argument(
        "--generators", type=name_list, default=",".join(GENERATORS), help="comma-separated"
    )
    p.add_argument(
        "--impls", default=",".join(builtin()), help="comma-separated built-in implementations"
    )
    p.add_argument(
        "--impl",
        action="append",
        type=non_empty,
        default=[],
        metavar="CMD",
        help="an outside implementation: a command speaking conformance/PROTOCOL.md (repeatable)",
    )
    p.add_argument(
        "--op-timeout", type=seconds, default=5.0, help="seconds per op, outside programs"
    )
    p.add_argument(
        "--total-timeout", type=seconds, default=120.0,
        help="seconds per trace, outside programs and built-ins alike (default 120)",
    )  # fmt: skip
    p.add_argument("--no-shrink", action="store_true", help="do not shrink failing traces")
    p.add_argument(
        "--features",
        type=feature_subset,
        default=None,
        metavar="LIST",
        help="judge implementations on this named subset of features only (e.g. "
        "'strict,multi-schema'): skips for other features are accepted (feature policy, "
        "docs/conformance.md)",
    )


def _say(msg: str, start: float) -> None:
    print(f"[conform {time.monotonic() - start:6.1f}s] {msg}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from conformance.impls import outside
    from conformance.spark_session import get_spark

    start = time.monotonic()
    gens = [g for g in args.generators.split(",") if g]
    impls = [i for i in args.impls.split(",") if i]
    unknown = [g for g in gens if g not in GENERATORS] + [i for i in impls if i not in builtin()]
    impls += [outside(c) for c in args.impl]
    if unknown:
        print(f"error: unknown generator or implementation: {', '.join(unknown)}", file=sys.stderr)
        return 2
    out = Path(args.out)
    _say(f"starting Spark ({args.master or 'local[2]'})", start)
    from pyspark.sql import SparkSession

    ours = SparkSession.getActiveSession() is None  # a caller's session is left running
    spark = get_spark(args.master)
    try:
        return _conform(args, spark, gens, impls, out, start)
    finally:
        if ours:
            spark.stop()


def _conform(
    args: argparse.Namespace,
    spark: object,
    gens: list[str],
    impls: list[str],
    out: Path,
    start: float,
) -> int:
    from conformance.impls import is_outside
    from conformance.runner import run_traces, ship_project_code, shrink_failures
    from conformance.spark_generate import generate_trace_set
    from conformance.verdict import Verdict

    ship_project_code(spark)
    _say(f"generating {len(gens)} x {args.count} {args.profile} traces", start)
    paths = generate_trace_set(
        spark, out, gens, args.count, args.seed, args.profile,
        progress=lambda msg: _say(msg, start),
    )  # fmt: skip
    _say(f"running {len(impls)} implementations on {len(paths)} traces over Spark", start)

    def progress(done: int, total: int, v: Verdict) -> None:
        if v.verdict in ("fail", "unknown"):
            _say(f"{v.impl} on {v.trace_id}: {v.describe()[:160]}", start)
        if done == total:
            _say(f"{total} runs done", start)

    verdicts = run_traces(
        impls, paths, spark, op_timeout=args.op_timeout,
        total_timeout=getattr(args, "total_timeout", 120.0), progress=progress,
    )  # fmt: skip
    if not args.no_shrink and any(v.verdict == "fail" for v in verdicts):
        _say("shrinking the failing traces", start)
        verdicts = shrink_failures(
            verdicts, paths, out, op_timeout=min(args.op_timeout, 2.0),
            progress=lambda msg: _say(msg, start),
        )  # fmt: skip
    notes = [
        f"Trace set: {len(paths)} traces ({', '.join(gens)}), profile {args.profile}, "
        f"seed {args.seed}, Spark master {args.master or 'local[2]'}.",
        "Expected deliveries: the Spark SQL oracle; `oracle-python` (a code-disjoint Python "
        "oracle) passing means both oracles agree on every trace.",
    ]
    commands = [f"`{i.removeprefix('cmd:')}`" for i in impls if is_outside(i)]
    if commands:
        notes.append(f"Outside implementations (cmd:): {', '.join(commands)}.")
    if args.features is not None:
        notes.append(f"Judged on the named feature subset: {', '.join(sorted(args.features))}.")
    report = write_report(out, verdicts, "Conformance report", notes, args.features)
    _say(f"report written to {report} and {report.with_suffix('.html')}", start)
    failed = False
    print(
        f"{'implementation':<40}{'verdict':<10}{'pass':>6}{'fail':>6}{'unknown':>9}{'skipped':>9}"
    )
    for impl, verdict, p, f, u, s, _ in summary_rows(verdicts, args.features):
        print(f"{short_label(impl, 39):<40}{verdict:<11}{p:>5}{f:>6}{u:>9}{s:>9}")
        failed = failed or verdict in ("fail", "unknown", "incomplete")
    for v in verdicts:
        if v.verdict == "fail":
            print(f"  {v.impl} {v.trace_id}: {v.describe()}")
            if "shrunk" in v.extra:
                print(f"    smallest failing trace: {out / v.extra['shrunk']}")
    return 1 if failed else 0
