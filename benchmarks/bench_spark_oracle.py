"""The Spark SQL oracle's two formulations on the same Parquet traces (issue 15): the first one
(predicates and values exploded, joined per attribute, counted per pair in a shuffle
aggregation; kept here as `SQL_EXPLODE`) and the current one (conformance/spark_oracle.py: each
candidate pair decided in its row). Both are reduced to the same per-trace fingerprint as
`conform --ops` uses (count and two sums of CRC-32, conformance/scale.py), which must agree;
prints ops, deliveries, seconds of each and the speed-up, measured in one run on local[2].
Exits 1 if the two disagree.

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

# The first formulation of the SQL oracle (until 2026-11-24), verbatim.
SQL_EXPLODE = """
WITH ops AS (
  SELECT o.*, h.matching FROM {ops} o JOIN {heads} h ON o.tkey = h.tkey
),
unsubscribes AS (
  SELECT tkey, id AS sub_id, seq FROM ops WHERE op = 'unsubscribe'
),
departures AS (
  SELECT tkey, node, seq FROM ops WHERE op = 'leave'
  UNION ALL
  SELECT tkey, explode(nodes) AS node, seq FROM ops WHERE op = 'fail'
),
subs AS (
  SELECT tkey, matching, id AS sub_id, subscriber, schema, seq AS start_seq, predicates,
         size(predicates) AS n_preds
  FROM ops WHERE op = 'subscribe'
),
unsubscribe_end AS (
  SELECT s.tkey, s.sub_id, min(u.seq) AS end_seq
  FROM subs s JOIN unsubscribes u
    ON s.tkey = u.tkey AND s.sub_id = u.sub_id AND u.seq > s.start_seq
  GROUP BY s.tkey, s.sub_id
),
departure_end AS (
  SELECT s.tkey, s.sub_id, min(d.seq) AS end_seq
  FROM subs s JOIN departures d
    ON s.tkey = d.tkey AND s.subscriber = d.node AND d.seq > s.start_seq
  GROUP BY s.tkey, s.sub_id
),
active AS (
  -- end_seq NULL: never unsubscribed, never departed (no sentinel: every BIGINT is a legal
  -- seq: a sentinel of 2^63-1 once hid a publish at that seq; issue 18). least() skips NULLs.
  SELECT s.*, least(u.end_seq, d.end_seq) AS end_seq
  FROM subs s
  LEFT JOIN unsubscribe_end u ON s.tkey = u.tkey AND s.sub_id = u.sub_id
  LEFT JOIN departure_end d ON s.tkey = d.tkey AND s.sub_id = d.sub_id
),
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
    from pubsub_spec.conformance.scale import expected_fingerprints

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
    from pubsub_spec.conformance.spark_oracle import SQL, parquet_frames
    from pubsub_spec.conformance.spark_session import get_spark

    with tempfile.TemporaryDirectory(prefix="bench-spark-oracle-") as tmp:
        root = a.traces
        if root is None:
            root = Path(tmp) / "traces"
            cmd = [sys.executable, "-m", "pubsub_spec.cli", "generate", "--ops", str(a.ops),
                   "--out", str(root)]  # fmt: skip
            print(f"generating about {a.ops} ops ...", flush=True)
            subprocess.run(cmd, check=True, capture_output=True)
        spark = get_spark()
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
        old, t_old = fingerprints(spark, SQL_EXPLODE, heads, ops)
        print(f"first (exploded, aggregated):       {t_old:8.1f} s", flush=True)
        same = old == new
        print(f"same fingerprints on every trace: {same}; speed-up {t_old / t_new:.1f}x")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
