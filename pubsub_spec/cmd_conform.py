"""`pubsub-spec conform`: the conformance suite. Generates a trace set on Spark (embedded local
mode unless --master names a cluster), computes the expected deliveries with the Spark SQL
oracle, runs the implementations on every trace over Spark partitions, and writes a Markdown and
HTML report. Exit code 1 when any implementation fails (or is unknown: a timeout, an
indefinite error), 2 on a usage error, 3 when the machine lacks Java 17+ (the fix is printed).
`--junit`/`--json` write one testcase per implementation x trace for CI (docs/ci.md).

Every verdict has two levels (conformance/OBSERVATIONS.md): the table, the report, JUnit and JSON
show the protocol level (`conforms`, `deviates (rule)`, `not reported`) beside the delivery
verdict. With `--level protocol` it also decides the exit code: 1 when an implementation
deviates, or an outside program reports no observations (a built-in without a claim, such as the
oracles, is `not reported` without failing)."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pubsub_spec.argtypes import non_empty, out_dir
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
from pubsub_spec.common_args import (
    add_count,
    add_driver_memory,
    add_features,
    add_generators,
    add_master,
    add_ops,
    add_partition_ops,
    add_profile,
    add_seed,
    add_timeouts,
)
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.impls import builtin
from pubsub_spec.conformance.lifeline import Interrupted, caught, interruptible
from pubsub_spec.conformance.report import (
    protocol_by_impl,
    short_label,
    summary_rows,
    write_report,
)
from pubsub_spec.conformance.scale.arguments import fraction, scale_session
from pubsub_spec.conformance.scale.planning import MAX_PARTITION_OPS
from pubsub_spec.conformance.scale.sampling import CROSS_OPS_BUDGET, SLOW_OPS_BUDGET
from pubsub_spec.outputs import OutputProblem, check_outputs, locked, written_by_us

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
    add_master(p)
    add_count(p)
    add_profile(p)
    add_ops(p, ", and run it streamed at Spark scale (docs/conformance.md, 'At scale')")
    p.add_argument(
        "--sample-slow", type=fraction, default=None, metavar="FRACTION",
        help="with --ops: share of the traces the slow implementations (simulators, outside "
        f"programs) run on (default: they share {SLOW_OPS_BUDGET} ops, each on "
        f"{SLOW_OPS_BUDGET}/(ops x their number) of the traces, at most all)",
    )  # fmt: skip
    p.add_argument(
        "--cross-check", type=fraction, default=None, metavar="FRACTION",
        help="with --ops: share of the traces the Python oracle cross-checks the SQL oracle on "
        f"(default {CROSS_OPS_BUDGET}/ops, at most all)",
    )  # fmt: skip
    add_driver_memory(p)
    add_partition_ops(p)
    add_seed(p, 1)
    add_generators(p)
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
    add_timeouts(p)
    p.add_argument("--no-shrink", action="store_true", help="do not shrink failing traces")
    add_features(p)
    p.add_argument(
        "--level", choices=("delivery", "protocol"), default="delivery",
        help="what decides the exit code: delivery (default) or also the protocol level "
        "(shown either way; conformance/OBSERVATIONS.md)",
    )  # fmt: skip


SCALE_DIRS = ("parquet", "results", "expected", "failing", "shrunk")  # conform --ops rewrites


def _say(msg: str, start: float) -> None:
    print(f"[conform {time.monotonic() - start:6.1f}s] {msg}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from pubsub_spec.conformance.impls import outside

    start = time.monotonic()
    if getattr(args, "profile", None) is None:
        args.profile = "medium" if getattr(args, "ops", None) else "small"
    gens = [g for g in args.generators.split(",") if g]
    impls = [i for i in args.impls.split(",") if i]
    unknown = [g for g in gens if g not in GENERATORS] + [i for i in impls if i not in builtin()]
    impls += [outside(c) for c in args.impl]
    if unknown:
        print(f"error: unknown generator or implementation: {', '.join(unknown)}", file=sys.stderr)
        return BAD_INPUT
    bad_output = _output_problem(args)
    if bad_output is not None:
        print(f"error: {bad_output}", file=sys.stderr)
        return BAD_INPUT
    problem = java_problem() if args.master is None else None  # a cluster brings its own
    if problem is not None:
        print(f"environment problem: {problem}", file=sys.stderr)
        _write_ci(args, ENVIRONMENT, [], str(problem))
        return ENVIRONMENT
    out = Path(args.out)
    try:
        with locked(out, "conform"):  # a second run on this folder refuses (outputs.py)
            return _run_locked(args, gens, impls, out, start)
    except OutputProblem as e:
        print(f"error: {e}", file=sys.stderr)
        return BAD_INPUT


def _output_problem(args: argparse.Namespace) -> OutputProblem | None:
    """Every output writable before any work; `--ops` clears its subfolders of `--out` only
    where a pubsub-spec run wrote that folder (outputs.MARKER)."""
    try:
        check_outputs({"--json": args.json, "--junit": args.junit}, {"--out": args.out})
    except OutputProblem as e:
        return e
    if getattr(args, "ops", None) and not written_by_us(args.out):
        theirs = [d for d in SCALE_DIRS if (Path(args.out) / d).exists()]
        if theirs:
            return OutputProblem(
                f"--out {args.out} holds {', '.join(theirs)} not written by pubsub-spec, which "
                "conform --ops would replace; choose another folder or remove them"
            )
    return None


def _run_locked(
    args: argparse.Namespace, gens: list[str], impls: list[str], out: Path, start: float
) -> int:
    from pubsub_spec.conformance.spark_session import cancel_jobs, get_spark, stop_within

    _say(f"starting Spark ({args.master or 'local[2]'})", start)
    from pyspark.sql import SparkSession

    ours = SparkSession.getActiveSession() is None  # a caller's session is left running
    try:
        memory, jvm = scale_session(args)
        spark = get_spark(args.master, driver_memory=memory, java_options=jvm)
    except Exception as e:  # PySpark's JAVA_GATEWAY_EXITED and kin: the machine's problem
        if "JAVA" not in str(e).upper():
            raise
        print(f"environment problem: Spark cannot start ({e}); fix: {JAVA_FIX}", file=sys.stderr)
        _write_ci(args, ENVIRONMENT, [], f"Spark cannot start: {e}")
        return ENVIRONMENT
    known: list[Verdict] = []
    settled = threading.Event()  # the main thread has left the Spark call a signal found it in
    stop: Interrupted | None = None
    try:
        # at a signal the main thread is most often blocked in a Spark call, which no signal
        # ends: a thread cancels the jobs (the call then fails) or, failing that, ends the JVM
        with interruptible(on_signal=lambda _: cancel_jobs(spark, settled)):
            if getattr(args, "ops", None):
                return _conform_scale(args, spark, gens, impls, out, start)
            return _conform(args, spark, gens, impls, out, start, known)
    except BaseException as e:  # Interrupted, or the cancelled call's own error after one
        stop = e if isinstance(e, Interrupted) else caught()
        if stop is None:
            raise
        settled.set()
        return _interrupted(args, out, known, stop, start)
    finally:
        if ours and stop is not None:
            stop_within(spark)  # not on the main thread's connection, which may owe an answer
        elif ours:
            spark.stop()


def _interrupted(
    args: argparse.Namespace, out: Path, known: list[Verdict], stop: Interrupted, start: float
) -> int:
    """SIGINT/SIGTERM: the programs are killed (lifeline.py); write what is known, marked."""
    note = (f"**Interrupted** by {stop.name} after {len(known)} runs; the others did not run "
            "or did not finish.")  # fmt: skip
    _say(f"interrupted by {stop.name}; writing the {len(known)} verdicts known", start)
    report = write_report(out, known, "Conformance report (interrupted)", [note], args.features)
    _say(f"report written to {report}", start)
    _write_ci(args, stop.exit_code, known, "", args.features, out, stop.name)
    return stop.exit_code


def _conform(
    args: argparse.Namespace,
    spark: object,
    gens: list[str],
    impls: list[str],
    out: Path,
    start: float,
    known: list[Verdict] | None = None,
) -> int:
    from pubsub_spec.conformance.impls import is_outside
    from pubsub_spec.conformance.runner import (
        run_traces,
        ship_project_code,
        shrink_deviations,
        shrink_failures,
    )
    from pubsub_spec.conformance.spark_generate import generate_trace_set

    ship_project_code(spark)
    _say(f"generating {len(gens)} x {args.count} {args.profile} traces", start)
    paths = generate_trace_set(
        spark, out, gens, args.count, args.seed, args.profile,
        progress=lambda msg: _say(msg, start),
    )  # fmt: skip
    _say(f"running {len(impls)} implementations on {len(paths)} traces over Spark", start)

    def progress(done: int, total: int, v: Verdict) -> None:
        if known is not None:
            known.append(v)
        if v.verdict in ("fail", "unknown"):
            _say(f"{v.impl} on {v.trace_id}: {v.describe()[:160]}", start)
        if done == total:
            _say(f"{total} runs done", start)

    verdicts = run_traces(
        impls, paths, spark, op_timeout=args.op_timeout,
        total_timeout=getattr(args, "total_timeout", 120.0), progress=progress, protocol=True,
    )  # fmt: skip
    if not args.no_shrink and any(v.verdict == "fail" for v in verdicts):
        _say("shrinking the failing traces", start)
        verdicts = shrink_failures(
            verdicts, paths, out, op_timeout=min(args.op_timeout, 2.0),
            progress=lambda msg: _say(msg, start),
        )  # fmt: skip
    by_level = getattr(args, "level", "delivery") == "protocol"
    if by_level and not args.no_shrink and any(v.protocol.startswith("deviates") for v in verdicts):
        _say("shrinking the first protocol deviation of each implementation", start)
        verdicts = shrink_deviations(
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
    levels = protocol_by_impl(verdicts)
    print(
        f"{'implementation':<40}{'verdict':<10}{'pass':>6}{'fail':>6}{'unknown':>9}{'skipped':>9}"
        "  protocol"
    )
    for impl, verdict, p, f, u, s, _ in summary_rows(verdicts, args.features):
        level = levels.get(impl, "")
        print(f"{short_label(impl, 39):<40}{verdict:<11}{p:>5}{f:>6}{u:>9}{s:>9}  {level}")
        failed = failed or verdict in ("fail", "unknown", "incomplete")
        if by_level:
            failed = failed or protocol_fails(impl, level)
    for v in verdicts:
        if v.protocol.startswith("deviates"):
            print(f"  {v.impl} {v.trace_id}: protocol {v.protocol_detail}")
            if "protocol_shrunk" in v.extra:
                print(f"    smallest trace deviating for the same rule: "
                      f"{out / v.extra['protocol_shrunk']}")  # fmt: skip
    for v in verdicts:
        if v.verdict == "fail":
            print(f"  {v.impl} {v.trace_id}: {v.describe()}")
            if "shrunk" in v.extra:
                print(f"    smallest failing trace: {out / v.extra['shrunk']}")
    code = exit_code(failed, False)
    _write_ci(args, code, verdicts, "", args.features, out)
    return code


def protocol_fails(impl: str, level: str) -> bool:
    """Under `--level protocol`: a deviation fails, and so does an outside program that reports
    nothing; a built-in without a claim (the oracles, the optimised variants) does not."""
    from pubsub_spec.conformance.impls import is_outside

    return level.startswith("deviates") or (is_outside(impl) and level != "conforms")


def _conform_scale(
    args: argparse.Namespace,
    spark: object,
    gens: list[str],
    impls: list[str],
    out: Path,
    start: float,
) -> int:
    """`conform --ops N`: the streamed run of conformance/scale/; the report gives counts
    per implementation, the fraction of the traces each ran on, and the failures it detailed."""
    from pubsub_spec.conformance.scale.report import write_scale_report
    from pubsub_spec.conformance.scale.run import run_scale

    r = run_scale(
        spark, out, gens, args.ops, args.seed, args.profile, impls,
        slow_fraction=getattr(args, "sample_slow", None),
        cross_fraction=getattr(args, "cross_check", None),
        max_partition_ops=getattr(args, "partition_ops", MAX_PARTITION_OPS),
        op_timeout=args.op_timeout, total_timeout=getattr(args, "total_timeout", 120.0),
        shrink=not args.no_shrink, features=args.features,
        progress=lambda msg: _say(msg, start),
        protocol=getattr(args, "level", "delivery") == "protocol",
    )  # fmt: skip
    master = args.master or "local[2]"
    report = write_scale_report(out, r, master)
    _say(f"report written to {report}", start)
    print(f"{r.traces} traces, {r.ops} ops, {r.seconds:.1f} s, {r.ops_per_minute:,.0f} ops/min")
    by_level = getattr(args, "level", "delivery") == "protocol"
    print(f"{'implementation':<40}{'verdict':<11}{'runs on':>10}{'pass':>8}{'fail':>6}"
          f"{'unknown':>9}{'skipped':>9}" + ("  protocol" if by_level else ""))  # fmt: skip
    for i in r.impls:
        share = "all" if i.fraction >= 1.0 else f"{i.fraction:.3g}"
        print(f"{short_label(i.impl, 39):<40}{i.verdict:<11}{share:>10}{i.passed:>8}"
              f"{i.failed:>6}{i.unknown:>9}{i.skipped:>9}"
              + (f"  {i.protocol}" if by_level else ""))  # fmt: skip
    for d in r.deviations:
        print(f"  {d.impl} {d.trace_id}: protocol {d.detail or d.protocol}")
    for f in r.failures:
        print(f"  {f.impl} {f.trace_id}: {f.detail or f.verdict + ': ' + f.reason}")
        if f.shrunk:
            print(f"    smallest failing trace: {out / f.shrunk}")
    if r.suite_failure:
        print(f"SUITE FAILURE: {r.suite_failure}")
    for s in r.stages:
        print(
            f"stage {s.name}: {s.seconds:.1f} s, driver {s.driver_peak_mb:.0f} MB, "
            f"driver JVM {s.driver_jvm_peak_mb:.0f} MB, executor JVM "
            f"{s.executor_jvm_peak_mb:.0f} MB, worker {s.worker_peak_mb:.0f} MB"
        )
    protocol_failed = by_level and any(protocol_fails(i.impl, i.protocol) for i in r.impls)
    code = exit_code(r.failed or protocol_failed, False)
    if args.junit:
        cases = [
            Case("conform", "suite", "oracle cross-check", 0.0,
                 "failed" if r.suite_failure else "passed", r.suite_failure, r.suite_failure)
        ]  # fmt: skip
        outcomes: dict[str, Outcome] = {
            "pass": "passed", "fail": "failed", "unknown": "error", "incomplete": "failed",
        }  # fmt: skip
        for i in r.impls:
            text = (f"{i.traces} traces ({i.fraction:.4g} of the set): {i.passed} pass, "
                    f"{i.failed} fail, {i.unknown} unknown, {i.skipped} skipped")  # fmt: skip
            msg = "" if i.verdict == "pass" else f"{i.verdict}: {text}"
            outcome = outcomes.get(i.verdict, "skipped")
            if by_level:
                text += (f"; protocol {i.protocol}: {i.conforms} conform, {i.deviates} deviate, "
                         f"{i.not_reported} not reported")  # fmt: skip
                if outcome == "passed" and protocol_fails(i.impl, i.protocol):
                    outcome, msg = "failed", f"protocol: {i.protocol}"
            cases.append(Case("conform", i.impl, "trace set", 0.0, outcome, msg, text))
        write_junit(args.junit, "pubsub-spec conform", cases)
    if args.json:
        from pubsub_spec.conformance.scale.report import result_json

        write_json(args.json, "conform", code, result_json(r))
    return code


def verdict_case(
    v: Verdict, suite: str, base: Path | None = None, level: str = "delivery"
) -> Case:
    """One JUnit testcase per implementation x trace: a fail is a failure, an unknown (timeout,
    indefinite error) an error, a skip skipped, each with its reason. The protocol level, when
    judged, is in the text; with `level` protocol, a passing trace whose protocol level is not
    `conforms` is a failure too."""
    outcomes: dict[str, Outcome] = {"pass": "passed", "fail": "failed", "unknown": "error"}
    outcome = outcomes.get(v.verdict, "skipped")
    text = v.describe()
    if v.protocol:
        text += f"\nprotocol: {v.protocol_detail or v.protocol}"
    if base is not None and "shrunk" in v.extra:
        text += f"\nsmallest failing trace: {base / v.extra['shrunk']}"
    message = "" if v.verdict == "pass" else v.describe()
    if level == "protocol" and outcome == "passed" and v.protocol != "conforms":
        outcome, message = "failed", f"protocol: {v.protocol_detail or v.protocol or 'not judged'}"
    return Case(suite, v.impl, v.trace_id, v.seconds, outcome, message, text)


def verdicts_json(
    verdicts: list[Verdict], features: frozenset[str] | None
) -> dict[str, object]:
    from dataclasses import asdict

    from pubsub_spec.conformance.report import judged_protocol, protocol_by_impl

    summary: list[dict[str, object]] = [
        {"implementation": impl, "verdict": verdict, "pass": p, "fail": f, "unknown": u,
         "skipped": s, "checked": c}
        for impl, verdict, p, f, u, s, c in summary_rows(verdicts, features)
    ]  # fmt: skip
    if judged_protocol(verdicts):  # the protocol level (conformance/OBSERVATIONS.md)
        levels = protocol_by_impl(verdicts)
        for row in summary:
            row["protocol"] = levels.get(str(row["implementation"]), "")
    return {"implementations": summary, "verdicts": [asdict(v) for v in verdicts]}


def _write_ci(
    args: argparse.Namespace,
    code: int,
    verdicts: list[Verdict],
    problem: str,
    features: frozenset[str] | None = None,
    out: Path | None = None,
    interrupted: str | None = None,
) -> None:
    """The --junit and --json files; an environment problem is one error testcase."""
    if args.junit:
        level = getattr(args, "level", "delivery")
        cases = [
            verdict_case(v, "conform", out, level if protocol_fails(v.impl, v.protocol) else "")
            for v in verdicts
        ]
        if problem:
            cases.append(Case("conform", "environment", "spark", 0.0, "error", problem))
        write_junit(args.junit, "pubsub-spec conform", cases)
    if args.json:
        body = verdicts_json(verdicts, features)
        body["environment_problems"] = [problem] if problem else []
        body["interrupted"] = interrupted
        write_json(args.json, "conform", code, body)
