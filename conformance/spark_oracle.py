"""The Spark SQL oracle: the expected deliveries of NDJSON traces computed by Spark SQL alone.

It shares no code with the Python oracle (`reference/oracle.py`, `reference/matching.py`): it
reads the trace files as text, parses them with `from_json`, computes each subscription's
activeness interval (from its subscribe to its unsubscribe or its subscriber's leave/fail,
DESIGN.md "Active"), and finds the matching pairs with a range join: a pair matches when no
predicate is violated — a value outside [lo, hi], or (strict matching) a value missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

OP_SCHEMA = (
    "format STRING, trace_id STRING, semantics STRUCT<matching: STRING>, "
    "seq BIGINT, op STRING, id STRING, node STRING, nodes ARRAY<STRING>, "
    "subscriber STRING, publisher STRING, schema STRING, "
    "predicates MAP<STRING, ARRAY<DOUBLE>>, `values` MAP<STRING, DOUBLE>"
)

SQL = """
WITH header AS (
  SELECT file, trace_id, semantics.matching AS matching FROM lines WHERE format IS NOT NULL
),
ops AS (
  SELECT h.trace_id, h.matching, l.* EXCEPT (trace_id, format, semantics)
  FROM lines l JOIN header h ON l.file = h.file WHERE l.format IS NULL
),
departures AS (
  SELECT trace_id, seq, node FROM ops WHERE op = 'leave'
  UNION ALL
  SELECT trace_id, seq, explode(nodes) AS node FROM ops WHERE op = 'fail'
),
subs AS (
  SELECT s.trace_id, s.matching, s.id AS sub_id, s.subscriber, s.schema, s.seq AS start_seq,
         s.predicates
  FROM ops s WHERE s.op = 'subscribe'
),
ends AS (
  SELECT s.trace_id, s.sub_id, min(x.seq) AS end_seq
  FROM subs s JOIN (
    SELECT trace_id, seq, id AS sub_id, NULL AS node FROM ops WHERE op = 'unsubscribe'
    UNION ALL
    SELECT trace_id, seq, NULL AS sub_id, node FROM departures
  ) x ON s.trace_id = x.trace_id AND x.seq > s.start_seq
     AND (x.sub_id = s.sub_id OR x.node = s.subscriber)
  GROUP BY s.trace_id, s.sub_id
),
active AS (
  SELECT s.*, coalesce(e.end_seq, 9223372036854775807) AS end_seq
  FROM subs s LEFT JOIN ends e ON s.trace_id = e.trace_id AND s.sub_id = e.sub_id
),
preds AS (
  SELECT trace_id, matching, sub_id, schema, start_seq, end_seq,
         explode(predicates) AS (attr, bounds)
  FROM active
),
events AS (
  SELECT trace_id, id AS event_id, schema, seq, `values` FROM ops WHERE op = 'publish'
),
candidates AS (
  SELECT p.trace_id, p.matching, p.sub_id, e.event_id, p.attr,
         element_at(p.bounds, 1) AS lo, element_at(p.bounds, 2) AS hi,
         element_at(e.`values`, p.attr) AS v
  FROM preds p JOIN events e
    ON p.trace_id = e.trace_id AND p.schema = e.schema
   AND e.seq > p.start_seq AND e.seq < p.end_seq
)
SELECT trace_id, event_id, sub_id
FROM candidates
GROUP BY trace_id, event_id, sub_id, matching
HAVING sum(CASE
  WHEN v IS NULL THEN (CASE WHEN matching = 'strict' THEN 1 ELSE 0 END)
  WHEN v < lo OR v > hi THEN 1
  ELSE 0 END) = 0
"""


def spark_expected(spark: Any, paths: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """trace id -> sorted (event id, subscription id) pairs that must be delivered."""
    from pyspark.sql import functions as F

    text = spark.read.text(list(paths)).withColumn("file", F.input_file_name())
    lines = text.select("file", F.from_json("value", OP_SCHEMA).alias("j")).select("file", "j.*")
    lines.createOrReplaceTempView("lines")
    out: dict[str, list[tuple[str, str]]] = {}
    for row in spark.sql(SQL).collect():
        out.setdefault(row["trace_id"], []).append((row["event_id"], row["sub_id"]))
    return {k: sorted(v) for k, v in out.items()}
