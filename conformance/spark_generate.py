"""Trace-set generation on Spark: trace indices are spread over partitions and each trace is a
pure function of (seed, generator, index), so the set is byte-identical whatever the
partitioning. Writes NDJSON per trace, the same content as Parquet partitioned by trace id, the
expected deliveries of the Spark SQL oracle, and an index."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conformance.spark_oracle import spark_expected


def _lines(task: tuple[str, int, int, str]) -> tuple[str, str, list[str]]:
    from conformance.generators import GENERATORS
    from conformance.traceio import trace_to_lines

    name, index, seed, profile = task
    trace = GENERATORS[name](seed, index, profile)
    return trace.trace_id, name, trace_to_lines(trace)


def _partition(rows: Iterator[tuple[str, int, int, str]]) -> Iterator[tuple[str, str, list[str]]]:
    for task in rows:
        yield _lines(task)


def generate_trace_set(
    spark: Any,
    out_dir: str | Path,
    generators: Sequence[str],
    count: int,
    seed: int,
    profile: str,
    partitions: int | None = None,
) -> list[Path]:
    out = Path(out_dir)
    (out / "traces").mkdir(parents=True, exist_ok=True)
    tasks = [(g, i, seed, profile) for g in generators for i in range(count)]
    rdd = spark.sparkContext.parallelize(tasks, partitions or max(1, min(len(tasks), 8)))
    made = sorted(rdd.mapPartitions(_partition).collect())
    paths: list[Path] = []
    rows: list[tuple[str, int, str]] = []
    for trace_id, _, lines in made:
        p = out / "traces" / f"{trace_id}.ndjson"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(p)
        rows.extend((trace_id, n, line) for n, line in enumerate(lines, start=1))
    df = spark.createDataFrame(rows, "trace_id STRING, line INT, json STRING")
    df.write.mode("overwrite").partitionBy("trace_id").parquet(str(out / "parquet"))
    expected = spark_expected(spark, [str(p) for p in paths])
    for trace_id, _, lines in made:
        pub_ids = [
            json.loads(line)["id"] for line in lines[1:] if json.loads(line)["op"] == "publish"
        ]
        by_event: dict[str, list[str]] = {e: [] for e in pub_ids}
        for e, s in expected.get(trace_id, []):
            by_event[e].append(s)
        text = "".join(
            json.dumps({"event": e, "deliveries": sorted(by_event[e])}) + "\n" for e in pub_ids
        )
        (out / "traces" / f"{trace_id}.expected.ndjson").write_text(text, encoding="utf-8")
    index = {
        "seed": seed,
        "profile": profile,
        "generators": list(generators),
        "traces": [{"trace_id": t, "generator": g} for t, g, _ in made],
    }
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return paths
