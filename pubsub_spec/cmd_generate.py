"""`pubsub-spec generate`: generate a conformance trace set on Spark (embedded local mode unless
--master names a cluster): NDJSON traces, their expected deliveries from the Spark SQL oracle,
the same traces as Parquet partitioned by trace id, and an index.json (conformance/FORMAT.md).
With --check DIR it instead reads the NDJSON traces of DIR, reports each malformed one with its
file, line and field, and computes the expected deliveries of the others. Exit code 0 on
success, 1 if a trace was rejected, 2 on bad arguments."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pubsub_spec.argtypes import existing_dir, out_dir, positive_int
from pubsub_spec.common_args import (
    add_count,
    add_driver_memory,
    add_generators,
    add_master,
    add_ops,
    add_partition_ops,
    add_profile,
    add_seed,
)
from pubsub_spec.conformance.generators import GENERATORS


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=out_dir, default="out/traces", help="the trace set goes here")
    add_generators(p)
    add_count(p)
    add_seed(p, 1)
    add_profile(p)
    add_ops(
        p,
        ": the executors write Parquet only (no NDJSON), and the SQL oracle's deliveries as "
        "Parquet in expected/",
    )
    add_partition_ops(p)
    add_master(p)
    add_driver_memory(p)
    p.add_argument(
        "--partitions", type=positive_int, default=None, help="Spark partitions for generation"
    )
    p.add_argument(
        "--check",
        type=existing_dir,
        default=None,
        metavar="DIR",
        help="read and validate the NDJSON traces of DIR instead of generating, and write "
        "their expected deliveries next to them",
    )


def _say(msg: str, start: float) -> None:
    print(f"[generate {time.monotonic() - start:6.1f}s] {msg}", file=sys.stderr, flush=True)


def _check(spark: object, directory: Path, start: float) -> int:
    from pubsub_spec.conformance.spark_oracle import spark_expected
    from pubsub_spec.conformance.traceio import read_trace_batch, write_expected
    from pubsub_spec.reference.common.oracle import Delivery

    paths = sorted(p for p in directory.glob("*.ndjson") if not p.name.endswith(".expected.ndjson"))
    good, bad = read_trace_batch(paths)
    for r in bad:
        print(f"rejected {r.path}: {r.error}")
    ok_paths = [p for p in paths if str(p) not in {r.path for r in bad}]
    expected = spark_expected(spark, ok_paths) if ok_paths else {}
    for path, trace in zip(ok_paths, good, strict=True):
        pairs = expected.get(trace.trace_id, [])
        write_expected(
            path.with_name(f"{trace.trace_id}.expected.ndjson"),
            trace,
            [Delivery(e, s) for e, s in pairs],
        )
        print(f"ok {path}: {len(trace.ops)} ops, {len(pairs)} deliveries")
    _say(f"{len(good)} traces accepted, {len(bad)} rejected", start)
    return 1 if bad else 0


def _generate_scale(spark: object, args: argparse.Namespace, gens: list[str], start: float) -> int:
    import json

    from pubsub_spec.conformance.scale.run import run_scale

    out = Path(args.out)
    r = run_scale(
        spark, out, gens, args.ops, args.seed, args.profile, (),
        max_partition_ops=args.partition_ops, progress=lambda msg: _say(msg, start),
    )  # fmt: skip
    index = {
        "format": "pubsub-trace-set-parquet",
        "version": 1,
        "seed": args.seed,
        "profile": args.profile,
        "generators": gens,
        "target_ops": args.ops,
        "traces": r.traces,
        "ops": r.ops,
        "parquet": "parquet",
        "expected": "expected",
    }
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    print(f"{r.traces} traces, {r.ops} ops in {r.partitions} partitions, {r.seconds:.1f} s")
    print(f"parquet: {out / 'parquet'}")
    print(f"expected deliveries: {out / 'expected'}")
    print(f"index: {out / 'index.json'}")
    return 0


def run(args: argparse.Namespace) -> int:
    start = time.monotonic()
    if getattr(args, "profile", None) is None:
        args.profile = "medium" if getattr(args, "ops", None) else "small"
    gens = [g for g in args.generators.split(",") if g]
    unknown = [g for g in gens if g not in GENERATORS]
    if unknown or not gens:
        print(
            f"error: unknown generator(s): {', '.join(unknown) or '(none given)'}; "
            f"known: {', '.join(GENERATORS)}",
            file=sys.stderr,
        )
        return 2
    if args.count < 1 or (args.partitions is not None and args.partitions < 1):
        print("error: --count and --partitions must be >= 1", file=sys.stderr)
        return 2
    if args.check is not None and not Path(args.check).is_dir():
        print(f"error: --check {args.check}: not a directory", file=sys.stderr)
        return 2

    from pyspark.sql import SparkSession

    from pubsub_spec.conformance.spark_generate import generate_trace_set
    from pubsub_spec.conformance.spark_session import get_spark, ship_code

    owned = SparkSession.getActiveSession() is None
    _say(f"starting Spark ({args.master or 'local[2]'})", start)
    from pubsub_spec.conformance.scale.arguments import scale_session

    memory, jvm = scale_session(args)
    spark = get_spark(args.master, driver_memory=memory, java_options=jvm)
    try:
        if args.master:
            ship_code(spark)
        if args.check is not None:
            return _check(spark, Path(args.check), start)
        if getattr(args, "ops", None):
            return _generate_scale(spark, args, gens, start)
        _say(
            f"generating {len(gens)} x {args.count} {args.profile} traces, seed {args.seed}", start
        )
        paths = generate_trace_set(
            spark,
            args.out,
            gens,
            args.count,
            args.seed,
            args.profile,
            partitions=args.partitions,
            progress=lambda msg: _say(msg, start),
        )
        out = Path(args.out)
        print(f"{len(paths)} traces in {out / 'traces'}")
        print(f"parquet: {out / 'parquet'}")
        print(f"index: {out / 'index.json'}")
        return 0
    except Exception as e:  # a CLI reports any failure with a non-zero exit code
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        if owned:
            spark.stop()
