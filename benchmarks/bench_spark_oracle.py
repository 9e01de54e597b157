"""The Spark SQL oracle's two formulations on the same Parquet traces: the first one
(predicates and values exploded, joined per attribute, counted per pair in a shuffle
aggregation; its part after the active subscriptions is kept here) and the current one
(conformance/spark_oracle.py: each candidate pair decided in its row). Both are reduced to the
same per-trace fingerprints as `conform --ops` uses (count and two sums of CRC-32,
conformance/scale/judging.py), which must agree. Prints ops, deliveries, the seconds of each and the
speed-up, measured in one run on local[2]; exits 1 if the two disagree.

Run: python -m benchmarks.bench_spark_oracle [--ops 100000] [--traces DIR] [--skip-old]
(--traces: a set written by `pubsub-spec generate --ops N --out DIR`; otherwise one is
generated in a temporary folder.)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The first formulation of the SQL oracle (until 2026-11-24): the same CTEs as the current query
# up to the active subscriptions, then predicates and values exploded, joined per attribute
# and counted per (event, subscription).
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


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=100_000)
    p.add_argument("--traces", type=Path, default=None)
    p.add_argument("--skip-old", action="store_true", help="time the current query only")
    a = p.parse_args(argv)
    from pubsub_spec.conformance.spark_oracle import COPARTITION, SQL, parquet_frames
    from pubsub_spec.conformance.spark_session import get_spark

    shared = SQL[: SQL.index("events AS (")]  # ops, departures, subs, ..., active
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
        for key, value in COPARTITION.items():  # as conform --ops plans the query
            spark.conf.set(key, value)
        heads, ops = parquet_frames(spark, root / "parquet")
        heads, ops = heads.cache(), ops.cache()  # parse once, outside both timings
        n_ops, n_traces = ops.count(), heads.count()
        print(f"{n_traces} traces, {n_ops} ops (parsed and cached)", flush=True)
        new, t_new = fingerprints(spark, SQL, heads, ops)
        deliveries = sum(v[0] for v in new.values())
        print(f"current (pairs decided in the row): {t_new:8.1f} s, {deliveries} deliveries",
              flush=True)  # fmt: skip
        if a.skip_old:
            return 0
        old, t_old = fingerprints(spark, exploded, heads, ops)
        print(f"first (exploded, aggregated):       {t_old:8.1f} s", flush=True)
        same = old == new
        print(f"same fingerprints on every trace: {same}; speed-up {t_old / t_new:.1f}x")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
