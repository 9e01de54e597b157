"""Trace-set generation on Spark (docs/design.md#conformance): trace indices are spread over
partitions and each trace is a pure function of (generator, seed, index, profile), so the set is
byte-identical whatever the partitioning. Writes, under `out_dir`:

- `traces/ID.ndjson`: each trace (conformance/FORMAT.md), validated by the NDJSON reader;
- `traces/ID.expected.ndjson`: its expected deliveries, from the Spark SQL oracle;
- `parquet/header`, `parquet/ops`: the same content as Parquet partitioned by trace id
  (conformance/parquet.py), written by Spark; the oracle reads these;
- `index.json`: seed, profile, generators and one entry per trace.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pubsub_spec.reference.common.ops import Trace

Task = tuple[str, int, int, str]  # generator, index, seed, profile
Made = tuple[str, str, list[str]]  # trace id, generator, NDJSON lines


def _make(task: Task) -> Made:
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.conformance.traceio import trace_to_lines

    name, index, seed, profile = task
    trace = GENERATORS[name](seed, index, profile)
    return trace.trace_id, name, trace_to_lines(trace)


def _partition(rows: Iterator[Task]) -> Iterator[Made]:
    for task in rows:
        yield _make(task)


def _header_row(made: Made) -> tuple[Any, ...]:
    from pubsub_spec.conformance.parquet import rows_from_lines

    return rows_from_lines(made[0], made[2])[0]


def _op_rows(made: Made) -> list[tuple[Any, ...]]:
    from pubsub_spec.conformance.parquet import rows_from_lines

    return rows_from_lines(made[0], made[2])[1]


def generate_trace_set(
    spark: Any,
    out_dir: str | Path,
    generators: Sequence[str],
    count: int,
    seed: int,
    profile: str,
    partitions: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Generate `count` traces per generator; return the NDJSON paths, sorted by trace id."""
    from pubsub_spec.conformance.generators import GENERATORS, PROFILES
    from pubsub_spec.conformance.parquet import HEADER_DDL, HEADER_DIR, OPS_DDL, OPS_DIR
    from pubsub_spec.conformance.spark_oracle import spark_expected_parquet
    from pubsub_spec.conformance.traceio import parse_trace_lines, write_expected
    from pubsub_spec.reference.common.oracle import Delivery

    unknown = [g for g in generators if g not in GENERATORS]
    if unknown or profile not in PROFILES or count < 0:
        raise ValueError(f"unknown generator(s) {unknown}, profile {profile!r} or count {count}")
    say = progress or (lambda _msg: None)
    out = Path(out_dir)
    traces_dir = out / "traces"
    traces_dir.mkdir(parents=True, exist_ok=True)
    tasks: list[Task] = [(g, i, seed, profile) for g in generators for i in range(count)]
    if not tasks:
        return []
    slices = partitions or max(1, min(len(tasks), 8))
    rdd = spark.sparkContext.parallelize(tasks, slices).mapPartitions(_partition).cache()
    try:
        made: list[Made] = sorted(rdd.collect())
        ids = [m[0] for m in made]
        if len(set(ids)) != len(ids):
            raise ValueError("generators produced duplicate trace ids")
        say(f"generated {len(made)} traces over {slices} partitions")
        paths: list[Path] = []
        traces: dict[str, Trace] = {}
        for trace_id, _, lines in made:
            p = traces_dir / f"{trace_id}.ndjson"
            traces[trace_id] = parse_trace_lines(lines, str(p))  # a generator bug stops here
            p.write_text("\n".join(lines) + "\n", encoding="utf-8")
            paths.append(p)
        parquet = out / "parquet"
        header_df = spark.createDataFrame(rdd.map(_header_row), HEADER_DDL)
        ops_df = spark.createDataFrame(rdd.flatMap(_op_rows), OPS_DDL)
        header_df.write.mode("overwrite").partitionBy("trace_id").parquet(str(parquet / HEADER_DIR))
        ops_df.write.mode("overwrite").partitionBy("trace_id").parquet(str(parquet / OPS_DIR))
        say(f"wrote Parquet to {parquet}")
    finally:
        rdd.unpersist()
    expected = spark_expected_parquet(spark, parquet)
    say("computed the expected deliveries with the Spark SQL oracle")
    entries = []
    for trace_id, generator, _ in made:
        pairs = expected.get(trace_id, [])
        exp = traces_dir / f"{trace_id}.expected.ndjson"
        write_expected(exp, traces[trace_id], [Delivery(e, s) for e, s in pairs])
        entries.append(
            {
                "trace_id": trace_id,
                "generator": generator,
                "trace": f"traces/{trace_id}.ndjson",
                "expected": f"traces/{trace_id}.expected.ndjson",
                "ops": len(traces[trace_id].ops),
                "deliveries": len(pairs),
            }
        )
    index = {
        "format": "pubsub-trace-set",
        "version": 1,
        "seed": seed,
        "profile": profile,
        "generators": list(generators),
        "count": count,
        "parquet": "parquet",
        "traces": entries,
    }
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return paths
