"""The Spark SQL oracle's three formulations on the same Parquet traces: the first one
(predicates and values exploded, joined per attribute, counted per pair in a shuffle
aggregation; its part after the active subscriptions is kept here), the second (each candidate
pair decided in its row, each predicate's attribute looked up by name in the event's map of
values; its three differing CTEs kept here) and the current one (conformance/spark_oracle.py:
decided in the row by attribute position). All are reduced to the same per-trace fingerprints
as `conform --ops` uses (count and two sums of CRC-32, conformance/scale/judging.py), which must
agree. Prints ops, deliveries, the seconds and JVM CPU seconds of each and the speed-ups,
measured in one run on local[2]; exits 1 if they disagree.

Run: python -m benchmarks.bench_spark_oracle [--ops 100000] [--traces DIR] [--skip-old]
(--traces: a set written by `pubsub-spec generate --ops N --out DIR`; otherwise one is
generated in a temporary folder.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The second formulation (until 2026-11-26): the current query with these CTEs in place of its
# own (no attribute positions: the predicates and the values kept as maps, looked up by name).
_BY_NAME_CTES = {
    "subs": """subs AS (
  SELECT /*+ REPARTITION(tkey) */ tkey, matching, id AS sub_id, subscriber, schema,
         seq AS start_seq, predicates, size(predicates) AS n_preds
  FROM ops WHERE op = 'subscribe'
),
""",
    "events": """events AS (
  SELECT /*+ REPARTITION(tkey) */ tkey, id AS event_id, schema, seq, vals
  FROM ops WHERE op = 'publish'
),
""",
    "matched": """matched AS (
  SELECT a.tkey, e.event_id, a.sub_id
  FROM active a JOIN events e
    ON a.tkey = e.tkey AND a.schema = e.schema AND e.seq > a.start_seq
   AND (a.end_seq IS NULL OR e.seq < a.end_seq)
  WHERE CASE a.matching
    WHEN 'strict' THEN
      a.n_preds > 0 AND forall(map_entries(a.predicates), p ->
        coalesce(try_element_at(e.vals, p.key) BETWEEN p.value[0] AND p.value[1], false))
    WHEN 'lenient' THEN
      forall(map_entries(a.predicates), p ->
        NOT map_contains_key(e.vals, p.key)
        OR coalesce(try_element_at(e.vals, p.key) BETWEEN p.value[0] AND p.value[1], false))
    ELSE false
  END
)
""",
}


def with_ctes(sql: str, ctes: dict[str, str]) -> str:
    """`sql` with each named CTE (from `NAME AS (` at a line's start to its closing `)` line)
    replaced by the given text."""
    for name, text in ctes.items():
        start = sql.index(f"\n{name} AS (\n") + 1
        end = min(i for i in (sql.find("\n),\n", start), sql.find("\n)\n", start)) if i >= 0)
        end = sql.index("\n", end + 1) + 1
        sql = sql[:start] + text + sql[end:]
    return sql


# The first formulation of the SQL oracle (until 2026-11-24): the same CTEs as the second
# query up to the active subscriptions, then predicates and values exploded, joined per
# attribute and counted per (event, subscription).
_EXPLODED_TAIL = """
predicate_rows AS (
  SELECT tkey, matching, sub_id, schema, start_seq, end_seq, n_preds, attr,
         element_at(bounds, 1) AS lo, element_at(bounds, 2) AS hi
  FROM active LATERAL VIEW explode(predicates) p AS attr, bounds
),
events AS (
  SELECT tkey, id AS event_id, schema, seq, vals FROM ops WHERE op = 'publish'
),
value_rows AS (
  SELECT tkey, event_id, schema, seq, attr, v
  FROM events LATERAL VIEW explode(vals) x AS attr, v
),
hits AS (
  SELECT p.tkey, p.matching, p.sub_id, p.n_preds, e.event_id,
         count(*) AS present,
         count_if(e.v BETWEEN p.lo AND p.hi) AS matched
  FROM predicate_rows p JOIN value_rows e
    ON p.tkey = e.tkey AND p.schema = e.schema AND p.attr = e.attr
   AND e.seq > p.start_seq AND (p.end_seq IS NULL OR e.seq < p.end_seq)
  GROUP BY p.tkey, p.matching, p.sub_id, p.n_preds, e.event_id
),
matched AS (
  SELECT tkey, event_id, sub_id FROM hits
  WHERE (matching = 'strict' AND matched = n_preds)
     OR (matching = 'lenient' AND matched = present)
  UNION ALL
  SELECT a.tkey, e.event_id, a.sub_id
  FROM active a JOIN events e
    ON a.tkey = e.tkey AND a.schema = e.schema AND e.seq > a.start_seq
   AND (a.end_seq IS NULL OR e.seq < a.end_seq)
  WHERE a.matching = 'lenient' AND NOT arrays_overlap(map_keys(a.predicates), map_keys(e.vals))
)
SELECT h.trace_id, m.event_id, m.sub_id
FROM matched m JOIN {heads} h ON m.tkey = h.tkey
"""


def fingerprints(
    spark: Any, sql: str, heads: Any, ops: Any
) -> tuple[dict[str, tuple[int, ...]], float]:
    """trace id -> (count, sum h1, sum h2) of the query's deliveries, and the seconds it took."""
    from pubsub_spec.conformance.scale.judging import expected_fingerprints

    start = time.monotonic()
    rows = expected_fingerprints(spark.sql(sql, heads=heads, ops=ops)).collect()
    secs = time.monotonic() - start
    return {r["trace_id"]: (int(r["en"]), int(r["eh1"]), int(r["eh2"])) for r in rows}, secs


def jvm_cpu(pid: int | None) -> float:
    """CPU seconds of the driver's JVM so far (in local mode it runs the queries); 0 unknown."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=100_000)
    p.add_argument("--traces", type=Path, default=None)
    p.add_argument("--skip-old", action="store_true", help="time the current query only")
    a = p.parse_args(argv)
    from pubsub_spec.conformance.scale.memory import jvm_pid
    from pubsub_spec.conformance.spark_oracle import COPARTITION, SQL, parquet_frames
    from pubsub_spec.conformance.spark_session import get_spark

    by_name = with_ctes(SQL, _BY_NAME_CTES)
    shared = by_name[: by_name.index("events AS (")]  # ops, ..., subs, ..., active
    exploded = shared + _EXPLODED_TAIL.lstrip("\n")

    with tempfile.TemporaryDirectory(prefix="bench-spark-oracle-") as tmp:
        root = a.traces
        if root is None:
            root = Path(tmp) / "traces"
            cmd = [sys.executable, "-m", "pubsub_spec.cli", "generate", "--ops", str(a.ops),
                   "--out", str(root)]  # fmt: skip
            print(f"generating about {a.ops} ops ...", flush=True)
            subprocess.run(cmd, check=True, capture_output=True)
        spark = get_spark()
        pid = jvm_pid(spark)
        for key, value in COPARTITION.items():  # as conform --ops plans the query
            spark.conf.set(key, value)
        heads, ops = parquet_frames(spark, root / "parquet")
        heads, ops = heads.cache(), ops.cache()  # parse once, outside the timings
        n_ops, n_traces = ops.count(), heads.count()
        print(f"{n_traces} traces, {n_ops} ops (parsed and cached)", flush=True)
        fingerprints(spark, SQL, heads, ops)  # the JVM's warm-up, not timed
        queries = [("current (by position)", SQL)]
        if not a.skip_old:
            queries += [("second (by name)", by_name), ("first (exploded)", exploded)]
        results: list[tuple[str, dict[str, tuple[int, ...]], float, float]] = []
        for label, sql in queries:
            cpu = jvm_cpu(pid)
            fps, secs = fingerprints(spark, sql, heads, ops)
            results.append((label, fps, secs, jvm_cpu(pid) - cpu))
            deliveries = sum(v[0] for v in fps.values())
            print(f"{label:22} {secs:8.1f} s, JVM CPU {results[-1][3]:8.1f} s, "
                  f"{deliveries} deliveries", flush=True)  # fmt: skip
        _, current, t_cur, c_cur = results[0]
        same = all(fps == current for _, fps, _, _ in results)
        for label, _, secs, cpu in results[1:]:
            print(f"{label}: {secs / t_cur:.1f}x the current query's seconds, "
                  f"{cpu / c_cur if c_cur else 0:.1f}x its JVM CPU")  # fmt: skip
        print(f"same fingerprints on every trace: {same}")
        return 0 if same else 1

if __name__ == "__main__":
    sys.exit(main())
