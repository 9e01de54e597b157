"""The Spark SQL oracle: the expected deliveries of traces computed by Spark SQL alone.

It shares no code with the Python oracle (`reference/common/oracle.py`,
`reference/common/matching.py`), nor with the trace reader: Spark parses the NDJSON lines (or the
Parquet tables of `conformance/parquet.py`) itself. The ops become DataFrames, one row per
subscription and one per event. Predicates and values meet by position: the header lists each
schema's attributes, a predicate becomes (position, lo, hi) and an event's values an array in
the schema's order, NULL where the event has no value (the trace format allows predicates and
values on the schema's attributes only). A subscription is active from its subscribe to its
unsubscribe or its subscriber's leave/fail, whichever comes first (docs/design.md#active;
decision D-CHURN). The candidate pairs are a join of active subscriptions with the events of
their trace and schema published inside the activeness interval; each pair is decided in its
row by a higher-order function over the predicates:
- strict matching (thesis §3.4.1, the default): every predicate's attribute is present and its
  value lies in [lo, hi] (`n_preds > 0` keeps the first formulation's answer for a subscription
  without predicates, which the trace reader rejects anyway);
- lenient matching (§3.4.1, "the constraint ... is ignored"): every predicate whose attribute
  the event carries holds, so a subscription none of whose attributes it carries matches
  vacuously.

Decision: the first formulation exploded subscriptions into one row per predicate and
events into one row per value, joined them on (trace, schema, attribute) and counted matches per
(event, subscription) in a shuffle aggregation: several rows and a group per candidate pair.
Deciding each pair in its row needs no explode and no aggregation: 129 s -> 25 s at 10^6 ops on
local[2] (`benchmarks/bench_spark_oracle.py` runs both on the same Parquet traces, checks that
they give the same deliveries and prints the speed-up; docs/conformance.md "At scale").
The tables are then partitioned by trace and the joins planned with COPARTITION, so that the
subscriptions with their predicate maps are shuffled once, not twice: 6-12 % less CPU at 10^6.
Decision: the pairs were then decided by name (each predicate's attribute looked up in the
event's map of values, a string comparison per key tried, some 200 ns a pair); by position
(above) the decision is an array index, and the query costs about a third less JVM CPU at 10^6
(docs/conformance.md "At scale", the oracle stage by position). The same deliveries.

Advertisement ops (`advertise`, `unadvertise`, trace format v2) are read with the other ops
and selected by no query below: they never change the expected deliveries (FORMAT.md,
"Advertisements"); every op filter names its op kind, so an advertisement's `id`, `publisher`
and `predicates` are never taken for a subscription's or an event's.

Numbers are compared as doubles; the trace format makes that exact (FORMAT.md, "Numbers").
The input traces must be valid (the NDJSON reader checks them); trace ids must be unique.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

# the header's schemas, as far as the query reads them: each schema's attribute names
SCHEMAS_TYPE = "ARRAY<STRUCT<name: STRING, attributes: ARRAY<STRUCT<name: STRING>>>>"
LINE_SCHEMA = (
    "format STRING, trace_id STRING, semantics STRUCT<matching: STRING>, "
    f"schemas {SCHEMAS_TYPE}, seq BIGINT, op STRING, id STRING, node STRING, nodes ARRAY<STRING>, "
    "subscriber STRING, publisher STRING, schema STRING, "
    "predicates MAP<STRING, ARRAY<DOUBLE>>, `values` MAP<STRING, DOUBLE>"
)
PREDICATES_TYPE = "MAP<STRING, ARRAY<DOUBLE>>"
VALUES_TYPE = "MAP<STRING, DOUBLE>"
# the op fields both frame readers (NDJSON lines, Parquet rows) pass on unchanged
_OP_FIELDS = ("seq", "op", "id", "node", "nodes", "subscriber", "publisher", "schema")

# {heads}: tkey, trace_id, matching, schemas (SCHEMAS_TYPE).
# {ops}: tkey, seq, op, id, node, nodes, subscriber,
# publisher, schema, predicates MAP<STRING, ARRAY<DOUBLE>>, vals MAP<STRING, DOUBLE>.
SQL = """
WITH ops AS (
  SELECT o.*, h.matching FROM {ops} o JOIN {heads} h ON o.tkey = h.tkey
),
schema_attrs AS (
  -- each schema's attribute names in the header's order: predicates and values name known
  -- attributes only (FORMAT.md, "Rules"), so they meet by position in this list, not by name
  SELECT tkey, sa.name AS schema, transform(sa.attributes, x -> x.name) AS names
  FROM (SELECT tkey, explode(schemas) AS sa FROM {heads})
),
-- the tables below are partitioned by trace (the REPARTITION hints) and every join and
-- grouping has the trace among its keys: with COPARTITION set no join shuffles again, so the
-- subscriptions with their predicates are shuffled once (by trace), not by (trace,
-- subscription) for their ends and then by (trace, schema) for the pairs
unsubscribes AS (
  SELECT /*+ REPARTITION(tkey) */ tkey, id AS sub_id, seq FROM ops WHERE op = 'unsubscribe'
),
departures AS (
  SELECT /*+ REPARTITION(tkey) */ tkey, node, seq FROM (
    SELECT tkey, node, seq FROM ops WHERE op = 'leave'
    UNION ALL
    SELECT tkey, explode(nodes) AS node, seq FROM ops WHERE op = 'fail')
),
subs AS (
  -- preds: one (pos, lo, hi) per predicate, pos its attribute's place in the schema's list
  SELECT /*+ REPARTITION(tkey) */ o.tkey, matching, id AS sub_id, subscriber, o.schema,
         seq AS start_seq, size(predicates) AS n_preds,
         transform(map_entries(predicates), p -> named_struct(
           'pos', CAST(array_position(sa.names, p.key) - 1 AS INT),
           'lo', p.value[0], 'hi', p.value[1])) AS preds
  FROM ops o LEFT JOIN schema_attrs sa ON o.tkey = sa.tkey AND o.schema = sa.schema
  WHERE op = 'subscribe'
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
  -- seq: a sentinel of 2^63-1 once hid a publish at that seq). least() skips NULLs.
  SELECT s.*, least(u.end_seq, d.end_seq) AS end_seq
  FROM subs s
  LEFT JOIN unsubscribe_end u ON s.tkey = u.tkey AND s.sub_id = u.sub_id
  LEFT JOIN departure_end d ON s.tkey = d.tkey AND s.sub_id = d.sub_id
),
events AS (
  -- vals: the event's value of each of its schema's attributes by position, NULL if absent
  SELECT /*+ REPARTITION(tkey) */ o.tkey, id AS event_id, o.schema, seq,
         transform(sa.names, x -> try_element_at(vals, x)) AS vals
  FROM ops o LEFT JOIN schema_attrs sa ON o.tkey = sa.tkey AND o.schema = sa.schema
  WHERE op = 'publish'
),
matched AS (
  -- one row per (active subscription, later publish of its schema); the predicates are
  -- checked in the row, so nothing is exploded, joined per attribute or aggregated.
  -- get: NULL for a position beyond the array (or a NULL position), under ANSI mode too
  SELECT a.tkey, e.event_id, a.sub_id
  FROM active a JOIN events e
    ON a.tkey = e.tkey AND a.schema = e.schema AND e.seq > a.start_seq
   AND (a.end_seq IS NULL OR e.seq < a.end_seq)
  WHERE CASE a.matching
    WHEN 'strict' THEN
      -- every predicate's attribute is present and its value inside [lo, hi]
      a.n_preds > 0 AND forall(a.preds, p ->
        coalesce(get(e.vals, p.pos) BETWEEN p.lo AND p.hi, false))
    WHEN 'lenient' THEN
      -- every predicate whose attribute is present holds (none present: vacuously)
      forall(a.preds, p ->
        coalesce(get(e.vals, p.pos) BETWEEN p.lo AND p.hi, get(e.vals, p.pos) IS NULL))
    ELSE false
  END
)
SELECT h.trace_id, m.event_id, m.sub_id
FROM matched m JOIN {heads} h ON m.tkey = h.tkey
"""


# joins on (trace, x) reuse the partitioning by trace alone; a session setting read when the
# query is planned (an action), so the callers set it around their actions. Without it the
# deliveries are the same, with more shuffles.
COPARTITION = {"spark.sql.requireAllClusterKeysForCoPartition": "false"}


@contextlib.contextmanager
def session_settings(spark: Any, settings: Mapping[str, str]) -> Iterator[None]:
    """`settings` set on the Spark session for the actions inside, each put back afterwards as
    it was (unset if it was not set), whatever happens."""
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, was in before.items():
            if was is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, was)


def expected_frame(spark: Any, heads: Any, ops: Any) -> Any:
    """The deliveries (trace_id, event_id, sub_id) of the traces given as DataFrames (plan them
    with COPARTITION set)."""
    return spark.sql(SQL, heads=heads, ops=ops)


def ndjson_frames(spark: Any, paths: Sequence[str | Path]) -> tuple[Any, Any]:
    """(heads, ops) of NDJSON trace files, parsed by Spark's JSON reader."""
    from pyspark.sql import functions as F

    text = spark.read.text([str(p) for p in paths]).select(
        F.input_file_name().alias("tkey"), "value"
    )
    lines = text.select("tkey", F.from_json("value", LINE_SCHEMA).alias("j")).select("tkey", "j.*")
    stem = F.regexp_extract("tkey", r"([^/]+?)(\.[^./]*)?$", 1)
    heads = lines.where("format IS NOT NULL").select(
        "tkey",
        F.coalesce("trace_id", stem).alias("trace_id"),
        F.col("semantics.matching").alias("matching"),
        "schemas",
    )
    ops = lines.where("format IS NULL").select(
        "tkey",
        *_OP_FIELDS,
        "predicates",
        F.col("`values`").alias("vals"),
    )
    return heads, ops


def parquet_frames(spark: Any, root: str | Path) -> tuple[Any, Any]:
    """(heads, ops) of the Parquet datasets of `conformance/parquet.py` under `root`."""
    from pyspark.sql import functions as F

    from pubsub_spec.conformance.parquet import HEADER_DDL, HEADER_DIR, OPS_DDL, OPS_DIR

    base = Path(root)
    h = spark.read.schema(HEADER_DDL).parquet(str(base / HEADER_DIR))
    o = spark.read.schema(OPS_DDL).parquet(str(base / OPS_DIR))
    heads = h.select(
        F.col("trace_id").alias("tkey"),
        "trace_id",
        "matching",
        F.from_json("schemas_json", SCHEMAS_TYPE).alias("schemas"),
    )
    ops = o.select(
        F.col("trace_id").alias("tkey"),
        *_OP_FIELDS,
        F.from_json("predicates_json", PREDICATES_TYPE).alias("predicates"),
        F.from_json("values_json", VALUES_TYPE).alias("vals"),
    )
    return heads, ops


def _expected(spark: Any, heads: Any, ops: Any) -> dict[str, list[tuple[str, str]]]:
    # the query reads `ops` several times: parse the input once
    heads, ops = heads.cache(), ops.cache()
    try:
        out: dict[str, list[tuple[str, str]]] = {}
        with session_settings(spark, COPARTITION):
            rows = expected_frame(spark, heads, ops).collect()
        for row in rows:
            out.setdefault(row["trace_id"], []).append((row["event_id"], row["sub_id"]))
        return {k: sorted(v) for k, v in sorted(out.items())}
    finally:
        heads.unpersist()
        ops.unpersist()


def spark_expected(spark: Any, paths: Sequence[str | Path]) -> dict[str, list[tuple[str, str]]]:
    """trace id -> sorted (event id, subscription id) pairs that must be delivered, for NDJSON
    trace files. A trace without any delivery is absent."""
    return _expected(spark, *ndjson_frames(spark, paths))


def spark_expected_parquet(spark: Any, root: str | Path) -> dict[str, list[tuple[str, str]]]:
    """The same for a Parquet trace set (conformance/parquet.py)."""
    return _expected(spark, *parquet_frames(spark, root))
