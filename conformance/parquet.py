"""Trace format v1 and v2 as Parquet (conformance/FORMAT.md, "Parquet"): the same content as
the NDJSON files, partitioned by trace id, for Spark-scale processing.

Two datasets under one root, both Hive-partitioned by `trace_id`:

- `header/trace_id=ID/*.parquet`: one row per trace with the header's fields flattened
  (`format`, `version`, `seed`, `generator`, `matching`, `initial_nodes`) and the nested parts
  as JSON text (`schemas_json`: the header's `schemas` array, `config_json`: its `config`
  object, `initial_nodes` included).
- `ops/trace_id=ID/*.parquet`: one row per op: `seq`, `op`, `line` (its NDJSON line number),
  `node` (join, leave), `nodes` (fail), `id` (subscribe, unsubscribe, publish), `subscriber`,
  `publisher`, `schema`, and `predicates_json` / `values_json`: the op's `predicates` / `values`
  object as JSON text, which keeps every number literally as in the NDJSON line (an int stays an
  int), and `adv` (publish: the advertisement it names, if any). `advertise` fills `id`,
  `publisher`, `schema`, `predicates_json`; `unadvertise` fills `id`. Fields an op does not
  have are null.

`lines_from_rows` rebuilds the NDJSON lines byte for byte as `trace_to_lines` writes them, and
`read_parquet` parses them with the NDJSON reader, so a Parquet trace is validated exactly like
an NDJSON one.
"""

from __future__ import annotations

import json
import json.encoder
import shutil
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.traceio import (
    header_object,
    op_object,
    parse_trace_lines,
)
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace

HEADER_DIR = "header"
OPS_DIR = "ops"
# Each table defined once, as (column, Spark SQL type); the column tuples, the Spark DDL
# (spark_generate writes the tables with Spark) and the Arrow schema are derived from it.
HEADER_TABLE = (
    ("trace_id", "STRING"),
    ("format", "STRING"),
    ("version", "INT"),
    ("seed", "BIGINT"),
    ("generator", "STRING"),
    ("matching", "STRING"),
    ("initial_nodes", "BIGINT"),
    ("schemas_json", "STRING"),
    ("config_json", "STRING"),
)
OPS_TABLE = (
    ("trace_id", "STRING"),
    ("seq", "BIGINT"),
    ("op", "STRING"),
    ("line", "BIGINT"),
    ("node", "STRING"),
    ("nodes", "ARRAY<STRING>"),
    ("id", "STRING"),
    ("subscriber", "STRING"),
    ("publisher", "STRING"),
    ("schema", "STRING"),
    ("predicates_json", "STRING"),
    ("values_json", "STRING"),
    ("adv", "STRING"),
)
HEADER_COLUMNS = tuple(name for name, _ in HEADER_TABLE)
OPS_COLUMNS = tuple(name for name, _ in OPS_TABLE)
HEADER_DDL = ", ".join(f"{name} {kind}" for name, kind in HEADER_TABLE)
OPS_DDL = ", ".join(f"{name} {kind}" for name, kind in OPS_TABLE)


def _arrow_schema(table: tuple[tuple[str, str], ...]) -> Any:
    import pyarrow as pa

    types = {
        "STRING": pa.string(),
        "INT": pa.int32(),
        "BIGINT": pa.int64(),
        "ARRAY<STRING>": pa.list_(pa.string()),
    }
    return pa.schema([(name, types[kind]) for name, kind in table])


# Key order of an op line, as trace_to_lines writes it.
_OP_KEYS = {
    "join": ("node",),
    "leave": ("node",),
    "fail": ("nodes",),
    "unsubscribe": ("id",),
    "subscribe": ("id", "subscriber", "schema", "predicates"),
    "publish": ("id", "publisher", "schema", "values", "adv"),
    "advertise": ("id", "publisher", "schema", "predicates"),
    "unadvertise": ("id",),
}
# Keys written only when present (a publish names an advertisement only if it chooses to).
_OPTIONAL_KEYS = frozenset({"adv"})


# json.dumps(value, separators=(",", ":"), allow_nan=False) makes this encoder anew per call;
# one kept is the same text at a fraction of the cost (a row has one or two of these)
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


# the C encoder JSONEncoder.encode builds on each call, built once (the same text: same
# function, separators and allow_nan); no circular-reference markers, as a row's maps and lists
# hold only strings and numbers (a cycle cannot occur); the kept encoder where there is no C one
_C_MAKE = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODE: Any = None
if _C_MAKE is not None:
    # (markers, default, string encoder, indent, key and item separators, sort_keys, skipkeys,
    # allow_nan), as JSONEncoder.iterencode passes them for _ENCODER
    _ascii = json.encoder.encode_basestring_ascii
    _C_ENCODE = _C_MAKE(None, _ENCODER.default, _ascii, None, ":", ",", False, False, False)


def _dump(value: Any) -> str:
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def _header_row(trace_id: str, h: dict[str, Any]) -> tuple[Any, ...]:
    return (
        trace_id,
        h["format"],
        h["version"],
        h["seed"],
        h["generator"],
        h["semantics"]["matching"],
        h["config"]["initial_nodes"],
        _dump(h["schemas"]),
        _dump(h["config"]),
    )


def _op_row(trace_id: str, number: int, o: dict[str, Any]) -> tuple[Any, ...]:
    return (
        trace_id,
        o["seq"],
        o["op"],
        number,
        o.get("node"),
        o.get("nodes"),
        o.get("id"),
        o.get("subscriber"),
        o.get("publisher"),
        o.get("schema"),
        _dump(o["predicates"]) if "predicates" in o else None,
        _dump(o["values"]) if "values" in o else None,
        o.get("adv"),
    )


def rows_from_lines(
    trace_id: str, lines: Sequence[str]
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """The header row and the op rows (tuples in HEADER_COLUMNS / OPS_COLUMNS order) of one
    trace given as valid NDJSON lines."""
    ops = [_op_row(trace_id, k, json.loads(line)) for k, line in enumerate(lines[1:], start=2)]
    return _header_row(trace_id, json.loads(lines[0])), ops


def _row_of_op(tid: str, number: int, op: Op) -> tuple[Any, ...]:
    """`_op_row(tid, number, op_object(op))` without the line object (the same columns)."""
    if isinstance(op, Subscribe):
        s = op.sub
        preds = _dump({p.attribute: [p.lo, p.hi] for p in s.predicates})
        return (tid, op.seq, "subscribe", number, None, None, s.id, s.subscriber, None, s.schema,
                preds, None, None)  # fmt: skip
    if isinstance(op, Publish):
        e = op.event
        return (tid, op.seq, "publish", number, None, None, e.id, None, e.publisher, e.schema,
                None, _dump(dict(e.values)), op.adv)  # fmt: skip
    return _op_row(tid, number, op_object(op))


def rows_from_trace(trace: Trace) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """`rows_from_lines` of the trace's NDJSON lines, made from the ops without writing and
    parsing the lines (conform --ops writes every trace this way; the same rows, pinned by
    tests/test_conformance_scale.py)."""
    tid = trace.trace_id
    ops = [_row_of_op(tid, k, op) for k, op in enumerate(trace.ops, start=2)]
    return _header_row(tid, header_object(trace)), ops


def lines_from_rows(header: dict[str, Any], ops: Iterable[dict[str, Any]]) -> list[str]:
    """The NDJSON lines of one trace from its header row and op rows (dicts by column name)."""
    head = {
        "format": header["format"],
        "version": header["version"],
        "trace_id": header["trace_id"],
        "seed": header["seed"],
        "generator": header["generator"],
        "schemas": json.loads(header["schemas_json"]),
        "semantics": {"matching": header["matching"]},
        "config": json.loads(header["config_json"]),
    }
    out = [_dump(head)]
    for row in sorted(ops, key=lambda r: int(r["seq"])):
        obj: dict[str, Any] = {"seq": row["seq"], "op": row["op"]}
        for key in _OP_KEYS.get(row["op"], ()):
            if key in _OPTIONAL_KEYS and row.get(key) is None:
                continue
            if key in ("predicates", "values"):
                text = row[f"{key}_json"]
                obj[key] = json.loads(text) if text is not None else None
            else:
                value = row[key]
                obj[key] = list(value) if key == "nodes" and value is not None else value
        out.append(_dump(obj))
    return out


def _tables(traces: Iterable[Trace]) -> tuple[Any, Any]:
    import pyarrow as pa

    headers: list[tuple[Any, ...]] = []
    ops: list[tuple[Any, ...]] = []
    for t in traces:
        h, o = rows_from_trace(t)
        headers.append(h)
        ops.extend(o)
    header_schema, ops_schema = _arrow_schema(HEADER_TABLE), _arrow_schema(OPS_TABLE)

    def table(rows: list[tuple[Any, ...]], schema: Any) -> Any:
        cols = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
        return pa.table(
            [pa.array(list(c), type=f.type) for c, f in zip(cols, schema, strict=True)],
            schema=schema,
        )

    return table(headers, header_schema), table(ops, ops_schema)


def write_parquet(traces: Iterable[Trace], root: str | Path) -> Path:
    """Write traces as the two partitioned datasets under `root` (replacing what was there)."""
    import pyarrow.parquet as pq

    out = Path(root)
    header, ops = _tables(traces)
    for sub, table in ((HEADER_DIR, header), (OPS_DIR, ops)):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir(parents=True)
        if table.num_rows:
            # page checksums: a reader finds a file damaged in the middle (`_read_file`)
            pq.write_to_dataset(
                table, str(out / sub), partition_cols=["trace_id"], write_page_checksum=True
            )
    return out


def _type_ok(kind: str, t: Any) -> bool:
    """Whether an Arrow type holds a column of Spark SQL type `kind` (strings of any Arrow
    width, dictionary-encoded or not; integers of any width)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    if kind == "STRING":
        return bool(
            pa.types.is_string(t)
            or pa.types.is_large_string(t)
            or getattr(pa.types, "is_string_view", lambda _: False)(t)
        )
    if kind in ("INT", "BIGINT"):
        return bool(pa.types.is_integer(t))
    if pa.types.is_list(t) or pa.types.is_large_list(t):  # ARRAY<STRING>
        return _type_ok("STRING", t.value_type)
    return False


# Columns that must hold a value in every row; the other op columns are judged, per op, by the
# NDJSON reader (a subscribe with a null `id` is rejected there, naming its line and field).
_REQUIRED = {
    HEADER_DIR: frozenset(HEADER_COLUMNS),
    OPS_DIR: frozenset({"trace_id", "seq", "op"}),
}
_JSON_COLUMNS = ("schemas_json", "config_json", "predicates_json", "values_json")


def _partition_value(relative: Path) -> str | None:
    """The trace id of a Hive partition folder `trace_id=ID` on the path (URI-decoded, as Spark
    and pyarrow write it), or None."""
    from urllib.parse import unquote

    for part in relative.parts[:-1]:
        if part.startswith("trace_id="):
            return unquote(part[len("trace_id=") :])
    return None


def _data_files(path: Path) -> list[Path]:
    """The data files of a dataset folder: every file below it whose path has no part starting
    with "." or "_" (Spark's `_SUCCESS` and `.crc`, a writer's temporary files)."""
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and not any(s.startswith((".", "_")) for s in p.relative_to(path).parts)
    )


def _read_file(file: Path, table: tuple[tuple[str, str], ...], partition: str | None,
               required: frozenset[str]) -> list[dict[str, Any]]:  # fmt: skip
    """The rows of one Parquet file as dicts by column name, checked: a Parquet file, not
    damaged, every column of `table` present with its type, a value where one is required,
    JSON text where JSON is expected. Errors name the file (and row) and the column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    where = str(file)
    try:
        data = pq.ParquetFile(file, page_checksum_verification=True).read()
    except (pa.ArrowException, OSError, ValueError) as e:  # not Parquet, truncated, corrupted
        raise InputError(where, "file", f"not a readable Parquet file: {e}") from None
    for name, kind in table:
        if name == "trace_id" and partition is not None and name not in data.column_names:
            continue
        if name not in data.column_names:
            raise InputError(where, name, f"missing column (expected {kind.lower()})")
        actual = data.schema.field(name).type
        if not _type_ok(kind, actual):
            raise InputError(where, name, f"column of type {actual}, expected {kind.lower()}")
    names = [name for name, _ in table if name in data.column_names]
    try:
        rows: list[dict[str, Any]] = data.select(names).to_pylist()
    except (pa.ArrowException, ValueError) as e:  # invalid UTF-8 in a string column, ...
        raise InputError(where, "file", f"unreadable data: {e}") from None
    for k, row in enumerate(rows, start=1):
        if partition is not None:
            found = row.get("trace_id")
            if found not in (None, partition):
                message = f"{found!r} in the folder trace_id={partition}"
                raise InputError(f"{where} row {k}", "trace_id", message)
            row["trace_id"] = partition
        for name in names:
            if row[name] is None and name in required:
                raise InputError(f"{where} row {k}", name, "null where a value is required")
        for name in _JSON_COLUMNS:
            text = row.get(name)
            if text is None:
                continue
            try:
                json.loads(text)
            except ValueError as e:
                raise InputError(f"{where} row {k}", name, f"not JSON text: {e}") from None
    return rows


def _read_rows(base: Path, sub: str, table: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """Every row of the dataset `base/sub`, each with `_where` (file and row) for errors."""
    path = base / sub
    if not path.is_dir():
        what = "not a folder" if path.exists() else "no such folder"
        raise InputError(str(path), sub, f"{what} (a Parquet trace set has {HEADER_DIR}/ and "
                                         f"{OPS_DIR}/ under its root)")  # fmt: skip
    rows: list[dict[str, Any]] = []
    for file in _data_files(path):
        partition = _partition_value(file.relative_to(path))
        for k, row in enumerate(_read_file(file, table, partition, _REQUIRED[sub]), start=1):
            row["_where"] = f"{file} row {k}"
            rows.append(row)
    return rows


def read_parquet_lines(root: str | Path) -> dict[str, list[str]]:
    """trace id -> its NDJSON lines, rebuilt from the Parquet datasets under `root`
    (written by `write_parquet` or by Spark with HEADER_DDL / OPS_DDL). Bad input (a missing
    folder, a file that is not Parquet or is damaged, a missing column, a column of another
    type, a null where a value is required, JSON text that is not JSON, a trace with two header
    rows or ops without one) raises `InputError` naming the file and row and the column."""
    base = Path(root)
    if not base.is_dir():
        what = "not a folder" if base.exists() else "no such folder"
        raise InputError(str(base), "root", f"{what}: expected a Parquet trace set")
    headers: dict[str, dict[str, Any]] = {}
    for r in _read_rows(base, HEADER_DIR, HEADER_TABLE):
        if r["trace_id"] in headers:
            raise InputError(r["_where"], "trace_id", f"a second header row for {r['trace_id']!r}")
        headers[r["trace_id"]] = r
    ops: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in _read_rows(base, OPS_DIR, OPS_TABLE):
        if r["trace_id"] not in headers:
            raise InputError(r["_where"], "trace_id", f"no header row for {r['trace_id']!r}")
        ops[r["trace_id"]].append(r)
    return {tid: lines_from_rows(headers[tid], ops[tid]) for tid in sorted(headers)}


def read_parquet(root: str | Path) -> list[Trace]:
    """Every trace under `root`, parsed and validated like NDJSON (errors name the trace id
    and the NDJSON line number), sorted by trace id. Bad Parquet input: `read_parquet_lines`."""
    base = Path(root)
    return [
        parse_trace_lines(lines, f"{base}/trace_id={tid}")
        for tid, lines in read_parquet_lines(base).items()
    ]
