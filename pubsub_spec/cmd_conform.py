"""`pubsub-spec conform`: the conformance suite. Generates a trace set on Spark (embedded local
mode unless --master names a cluster), computes the expected deliveries with the Spark SQL
oracle, runs the implementations on every trace over Spark partitions, and writes a Markdown and
HTML report. Exit code 1 when any implementation fails (or is unknown: a timeout, an
indefinite error), 2 on a usage error, 3 when the machine lacks Java 17+ (the fix is printed).
`--junit`/`--json` write one testcase per implementation x trace for CI (docs/ci.md)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pubsub_spec.argtypes import (
    feature_subset,
    name_list,
    non_empty,
    out_dir,
    positive_int,
    seconds,
    seed_int,
)
from pubsub_spec.ci import (
    BAD_INPUT,
    ENVIRONMENT,
    EPILOG,
    JAVA_FIX,
    Case,
    Outcome,
    exit_code,
    java_problem,
    output_file,
    write_json,
    write_junit,
)
from pubsub_spec.conformance.generators import GENERATORS, PROFILES
from pubsub_spec.conformance.impls import builtin
from pubsub_spec.conformance.report import short_label, summary_rows, write_report

if TYPE_CHECKING:
    from pubsub_spec.conformance.verdict import Verdict


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.add_argument(
        "--junit", type=output_file, metavar="FILE",
        help="also write JUnit XML: one testcase per implementation x trace",
    )  # fmt: skip
    p.add_argument(
        "--json", type=output_file, metavar="FILE",
        help="also write the summary and every verdict as JSON",
    )  # fmt: skip
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
    from pubsub_spec.conformance.impls import outside
    from pubsub_spec.conformance.spark_session import get_spark

    start = time.monotonic()
    gens = [g for g in args.generators.split(",") if g]
    impls = [i for i in args.impls.split(",") if i]
    unknown = [g for g in gens if g not in GENERATORS] + [i for i in impls if i not in builtin()]
    impls += [outside(c) for c in args.impl]
    if unknown:
        print(f"error: unknown generator or implementation: {', '.join(unknown)}", file=sys.stderr)
        return BAD_INPUT
    problem = java_problem() if args.master is None else None  # a cluster brings its own
    if problem is not None:
        print(f"environment problem: {problem}", file=sys.stderr)
        _write_ci(args, ENVIRONMENT, [], str(problem))
        return ENVIRONMENT
    out = Path(args.out)
    _say(f"starting Spark ({args.master or 'local[2]'})", start)
    from pyspark.sql import SparkSession

    ours = SparkSession.getActiveSession() is None  # a caller's session is left running
    try:
        spark = get_spark(args.master)
    except Exception as e:  # PySpark's JAVA_GATEWAY_EXITED and kin: the machine's problem
        if "JAVA" not in str(e).upper():
            raise
        print(f"environment problem: Spark cannot start ({e}); fix: {JAVA_FIX}", file=sys.stderr)
        _write_ci(args, ENVIRONMENT, [], f"Spark cannot start: {e}")
        return ENVIRONMENT
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
    from pubsub_spec.conformance.impls import is_outside
    from pubsub_spec.conformance.runner import run_traces, ship_project_code, shrink_failures
    from pubsub_spec.conformance.spark_generate import generate_trace_set

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
    code = exit_code(failed, False)
    _write_ci(args, code, verdicts, "", args.features, out)
    return code


def verdict_case(v: Verdict, suite: str, base: Path | None = None) -> Case:
    """One JUnit testcase per implementation x trace: a fail is a failure, an unknown (timeout,
    indefinite error) an error, a skip skipped, each with its reason."""
    outcomes: dict[str, Outcome] = {"pass": "passed", "fail": "failed", "unknown": "error"}
    outcome = outcomes.get(v.verdict, "skipped")
    text = v.describe()
    if base is not None and "shrunk" in v.extra:
        text += f"\nsmallest failing trace: {base / v.extra['shrunk']}"
    message = "" if v.verdict == "pass" else v.describe()
    return Case(suite, v.impl, v.trace_id, v.seconds, outcome, message, text)


def verdicts_json(
    verdicts: list[Verdict], features: frozenset[str] | None
) -> dict[str, object]:
    from dataclasses import asdict

    summary = [
        {"implementation": impl, "verdict": verdict, "pass": p, "fail": f, "unknown": u,
         "skipped": s, "checked": c}
        for impl, verdict, p, f, u, s, c in summary_rows(verdicts, features)
    ]  # fmt: skip
    return {"implementations": summary, "verdicts": [asdict(v) for v in verdicts]}


def _write_ci(
    args: argparse.Namespace,
    code: int,
    verdicts: list[Verdict],
    problem: str,
    features: frozenset[str] | None = None,
    out: Path | None = None,
) -> None:
    """The --junit and --json files; an environment problem is one error testcase."""
    if args.junit:
        cases = [verdict_case(v, "conform", out) for v in verdicts]
        if problem:
            cases.append(Case("conform", "environment", "spark", 0.0, "error", problem))
        write_junit(args.junit, "pubsub-spec conform", cases)
    if args.json:
        body = verdicts_json(verdicts, features)
        body["environment_problems"] = [problem] if problem else []
        write_json(args.json, "conform", code, body)
