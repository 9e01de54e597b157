"""The Parquet reading API (conformance/parquet.py) on bad input: a typed `InputError` naming the
file (and row) and the column for a missing folder, a file that is not Parquet or is damaged, a
missing column, a column of another type, a null where a value is required, JSON text that is
not JSON, a trace with two header rows or ops without one; and ids holding NUL characters read
back whole, through both writers (the partitioned `write_parquet` and the executors' one file
per partition)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec.conformance.parquet import (
    HEADER_TABLE,
    OPS_TABLE,
    read_parquet,
    read_parquet_lines,
    rows_from_trace,
    write_parquet,
)
from pubsub_spec.conformance.scale.sink import ParquetSink
from pubsub_spec.conformance.traceio import parse_trace_lines, trace_to_lines
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import Fail, Publish, Subscribe, Trace

HEADER = {
    "format": "pubsub-trace",
    "version": 1,
    "trace_id": "t",
    "seed": 1,
    "generator": "manual",
    "schemas": [{"name": "s", "attributes": [{"name": "a", "type": "float", "min": 0, "max": 9}]}],
    "semantics": {"matching": "strict"},
    "config": {"initial_nodes": 2},
}


def _trace(sub: str = "s1", event: str = "e1", node: str = "j1") -> Trace:
    ops = [
        {"seq": 1, "op": "join", "node": node},
        {"seq": 2, "op": "subscribe", "id": sub, "subscriber": node, "schema": "s",
         "predicates": {"a": [1, 5]}},
        {"seq": 3, "op": "publish", "id": event, "publisher": "n0", "schema": "s",
         "values": {"a": 3}},
        {"seq": 4, "op": "fail", "nodes": [node]},
    ]  # fmt: skip
    return parse_trace_lines([json.dumps(o) for o in [HEADER, *ops]], "t")


def _written(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A trace set of one trace; (root, its header file, its ops file)."""
    root = tmp_path / "set"
    write_parquet([_trace()], root)
    (header,) = (root / "header").rglob("*.parquet")
    (ops,) = (root / "ops").rglob("*.parquet")
    return root, header, ops


def _rewrite(file: Path, change: Callable[[Any], Any]) -> None:
    import pyarrow.parquet as pq

    pq.write_table(change(pq.read_table(file)), file)


def _refused(root: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_parquet(root)
    return info.value


@pytest.mark.parametrize("case", ["no root", "root is a file", "no header/", "no ops/"])
def test_a_missing_folder_is_an_input_error(tmp_path: Path, case: str) -> None:
    """Before: a missing root or dataset folder read as an empty trace set, silently."""
    root, _, _ = _written(tmp_path)
    if case == "no root":
        root = tmp_path / "absent"
        where, field = str(root), "root"
    elif case == "root is a file":
        root = tmp_path / "file"
        root.write_text("x")
        where, field = str(root), "root"
    else:
        sub = "header" if case == "no header/" else "ops"
        shutil.rmtree(root / sub)
        where, field = str(root / sub), sub
    e = _refused(root)
    assert (e.where, e.field) == (where, field) and "folder" in e.message


@pytest.mark.parametrize(
    "damage",
    ["not parquet", "empty", "truncated", "footer", "middle"],
)
def test_a_file_that_is_not_parquet_or_is_damaged_is_named(tmp_path: Path, damage: str) -> None:
    """Before: pyarrow's own exception (ArrowInvalid, OSError) escaped, or, for bytes changed in
    the middle of a page, a different trace was read without a word."""
    root, _, ops = _written(tmp_path)
    data = bytearray(ops.read_bytes())
    if damage == "not parquet":
        data = bytearray(b'{"seq": 1, "op": "join"}\n' * 20)
    elif damage == "empty":
        data = bytearray()
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "footer":
        data[-12:-4] = b"\xff" * 8  # the footer's length and its last bytes
    else:  # one byte of a subscription id in a data page: found by the page checksum
        at = data.index(b"s1")
        data[at : at + 2] = b"s2"
    ops.write_bytes(bytes(data))
    e = _refused(root)
    assert (e.where, e.field) == (str(ops), "file"), e
    assert "Parquet" in e.message


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    """Before: KeyError: 'op'."""
    root, _, ops = _written(tmp_path)
    _rewrite(ops, lambda t: t.drop_columns(["op"]))
    e = _refused(root)
    assert (e.where, e.field) == (str(ops), "op") and "missing column" in e.message


@pytest.mark.parametrize(
    ("table", "column", "values", "kind"),
    [
        ("header", "schemas_json", [7], "string"),  # before: TypeError from json.loads
        ("ops", "seq", ["1", "2", "3", "4"], "bigint"),  # before: named a line, not the file
        ("ops", "nodes", [None, None, None, "j1"], "array<string>"),
    ],
)
def test_a_column_of_another_type_is_named(
    tmp_path: Path, table: str, column: str, values: list[Any], kind: str
) -> None:
    root, header, ops = _written(tmp_path)
    file = header if table == "header" else ops

    def change(t: Any) -> Any:
        import pyarrow as pa

        return t.set_column(t.column_names.index(column), column, pa.array(values))

    _rewrite(file, change)
    e = _refused(root)
    assert (e.where, e.field) == (str(file), column)
    assert e.message.endswith(f"expected {kind}"), e


@pytest.mark.parametrize(
    ("table", "column", "row"),
    [("header", "schemas_json", 1), ("header", "generator", 1), ("ops", "seq", 3),
     ("ops", "op", 2)],
)  # fmt: skip
def test_a_null_where_a_value_is_required_names_file_row_and_column(
    tmp_path: Path, table: str, column: str, row: int
) -> None:
    """Before: TypeError (json.loads(None), int(None)) or a trace built around the hole."""
    root, header, ops = _written(tmp_path)
    file = header if table == "header" else ops

    def change(t: Any) -> Any:
        import pyarrow as pa

        values = t.column(column).to_pylist()
        values[row - 1] = None
        at = t.column_names.index(column)
        return t.set_column(at, column, pa.array(values, type=t.schema.field(column).type))

    _rewrite(file, change)
    e = _refused(root)
    assert (e.where, e.field) == (f"{file} row {row}", column) and "null" in e.message


def test_json_text_that_is_not_json_is_named(tmp_path: Path) -> None:
    """Before: json.JSONDecodeError."""
    root, _, ops = _written(tmp_path)

    def change(t: Any) -> Any:
        import pyarrow as pa

        values = t.column("values_json").to_pylist()
        values[2] = '{"a": 3'
        at = t.column_names.index("values_json")
        return t.set_column(at, "values_json", pa.array(values, type=pa.string()))

    _rewrite(ops, change)
    e = _refused(root)
    assert (e.where, e.field) == (f"{ops} row 3", "values_json") and "not JSON" in e.message


def test_two_header_rows_or_ops_without_a_header_are_refused(tmp_path: Path) -> None:
    """Before: the last header row won, and ops of a trace without one were dropped."""
    root, header, ops = _written(tmp_path)
    _rewrite(header, lambda t: t.take([0, 0]))
    e = _refused(root)
    assert (e.where, e.field) == (f"{header} row 2", "trace_id") and "second header" in e.message
    _rewrite(header, lambda t: t.take([0]))
    moved = root / "ops" / "trace_id=u"
    moved.mkdir()
    shutil.copy(ops, moved / ops.name)
    e = _refused(root)
    assert (e.where, e.field) == (f"{moved / ops.name} row 1", "trace_id")
    assert "no header row for 'u'" in e.message


def test_hidden_files_beside_the_data_are_skipped(tmp_path: Path) -> None:
    """Spark's `_SUCCESS` and `.crc` files and a writer's temporary files are not data."""
    root, _, ops = _written(tmp_path)
    (root / "ops" / "_SUCCESS").write_text("")
    (ops.parent / f".{ops.name}.crc").write_bytes(b"\x00crc")
    assert read_parquet(root) == [_trace()]


NUL_IDS = ["s\x00x", "s\x00", "\x00", "a\x00\x00b\x00"]


@pytest.mark.parametrize("nul", NUL_IDS)
@pytest.mark.parametrize("writer", ["write_parquet", "executor sink"])
def test_ids_with_a_nul_survive_the_round_trip(tmp_path: Path, nul: str, writer: str) -> None:
    """Subscription, event and node ids holding NUL (inside and at the end) read back whole,
    from the partitioned layout and from the executors' files (`trace_id` a column)."""
    trace = _trace(sub=nul, event=f"e{nul}", node=f"{nul}n")
    root = tmp_path / "set"
    if writer == "write_parquet":
        write_parquet([trace], root)
    else:
        header, ops = rows_from_trace(trace)
        for sub, table, rows in (("header", HEADER_TABLE, [header]), ("ops", OPS_TABLE, ops)):
            sink = ParquetSink(root / sub / "part-00000.parquet", table)
            sink.add(rows)
            sink.close()
    (back,) = read_parquet(root)
    assert back == trace
    assert read_parquet_lines(root) == {"t": trace_to_lines(trace)}
    sub_op, pub_op, fail_op = back.ops[1], back.ops[2], back.ops[3]
    assert isinstance(sub_op, Subscribe) and sub_op.sub.id == nul
    assert isinstance(pub_op, Publish) and pub_op.event.id == f"e{nul}"
    assert isinstance(fail_op, Fail) and fail_op.nodes == (f"{nul}n",)
