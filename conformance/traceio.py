"""Trace format v1: NDJSON reading, writing and validation (conformance/FORMAT.md).

Line 1 is the header; each further line one op. Every error is an `InputError` that names the
file, the line and the field: JSON syntax, NaN/Infinity literals, duplicate keys, the JSON
Schema (`trace-v1.schema.json`), unknown config fields, then the semantic checks of
`reference.ops.validate_trace`.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from reference.config import SystemConfig
from reference.errors import InputError
from reference.model import Attribute, Event, Number, Predicate, Schema, Subscription
from reference.ops import (
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Trace,
    Unsubscribe,
    validate_trace,
)
from reference.oracle import Delivery

SCHEMA_FILE = "trace-v1.schema.json"
OP_KINDS = ("join", "leave", "fail", "subscribe", "unsubscribe", "publish")
FORMAT = "pubsub-trace"
VERSION = 1
TUPLE_FIELDS = ("widening", "cutoff", "cutoff_h")


@cache
def _schema() -> dict[str, Any]:
    """The JSON Schema, read as package data (works from a zip shipped to Spark executors)."""
    text = importlib.resources.files("conformance").joinpath(SCHEMA_FILE).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(part: str) -> jsonschema.Draft202012Validator:
    """`header`, or one op kind (the branch of `$defs/op` for that kind)."""
    defs = _schema()["$defs"]
    if part == "header":
        return jsonschema.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/header"})
    return jsonschema.Draft202012Validator(
        {"$defs": defs, **defs["op"]["oneOf"][OP_KINDS.index(part)]}
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _load(line: str, where: str) -> Any:
    try:
        return json.loads(line, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise InputError(where, "(json)", f"invalid JSON: {e.msg} at column {e.colno}") from None
    except ValueError as e:
        raise InputError(where, "(json)", str(e)) from None


def _schema_check(obj: Any, part: str, where: str) -> None:
    """Check one line against the JSON Schema; name the first offending field."""
    if part == "op":
        if not isinstance(obj, dict):
            raise InputError(where, "(line)", "an op must be a JSON object")
        seq = obj.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise InputError(where, "seq", f"expected a non-negative integer, got {seq!r}")
        _op_shape_error(obj, where)
        return
    err = jsonschema.exceptions.best_match(_validator(part).iter_errors(obj))
    if err is None:
        return
    path = ".".join(str(p) for p in err.absolute_path)
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [k for k in err.validator_value if k not in err.instance]
        path = ".".join(filter(None, [path, missing[0] if missing else ""]))
    raise InputError(where, path or "(line)", err.message)


def _op_shape_error(obj: dict[str, Any], where: str) -> None:
    kind = obj.get("op")
    if kind not in OP_KINDS:
        raise InputError(where, "op", f"unknown op {kind!r}, expected one of {', '.join(OP_KINDS)}")
    schema = _schema()["$defs"]["op"]["oneOf"][OP_KINDS.index(kind)]
    err = jsonschema.exceptions.best_match(_validator(kind).iter_errors(obj))
    if err is None:
        return
    path = ".".join(str(p) for p in err.absolute_path)
    if err.validator == "additionalProperties":
        extra = sorted(set(obj) - set(schema["properties"]))
        path = extra[0] if extra else path
        raise InputError(where, path or "op", f"unexpected field(s) {extra} for op {kind!r}")
    if err.validator == "required":
        missing = [k for k in err.validator_value if k not in obj]
        raise InputError(where, missing[0] if missing else "op", err.message)
    raise InputError(where, path or "op", err.message)


def _config(obj: dict[str, Any], where: str) -> SystemConfig:
    known = {f.name: f for f in dataclasses.fields(SystemConfig) if f.name != "extra"}
    kwargs: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "initial_nodes":
            continue
        if key not in known:
            raise InputError(where, f"config.{key}", "unknown config field")
        if key in TUPLE_FIELDS:
            if not isinstance(value, dict) or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value.values()
            ):
                raise InputError(where, f"config.{key}", "expected an object attribute -> number")
            kwargs[key] = tuple(sorted((k, float(v)) for k, v in value.items()))
        else:
            default = known[key].default
            if default is None:  # optional int fields (lnrt_max_records)
                ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
            elif isinstance(default, bool) or isinstance(value, bool):
                ok = isinstance(value, bool) and isinstance(default, bool)
            elif isinstance(default, float):
                ok = isinstance(value, int | float)
            else:
                ok = isinstance(value, type(default))
            if not ok:
                raise InputError(where, f"config.{key}", f"bad value {value!r}")
            kwargs[key] = float(value) if isinstance(default, float) else value
    try:
        return SystemConfig(**kwargs)
    except (TypeError, ValueError) as e:
        raise InputError(where, "config", str(e)) from None


def _op(obj: dict[str, Any]) -> Op:
    seq, kind = obj["seq"], obj["op"]
    if kind == "join":
        return Join(seq, obj["node"])
    if kind == "leave":
        return Leave(seq, obj["node"])
    if kind == "fail":
        return Fail(seq, tuple(obj["nodes"]))
    if kind == "unsubscribe":
        return Unsubscribe(seq, obj["id"])
    if kind == "subscribe":
        preds = tuple(Predicate(a, lo, hi) for a, (lo, hi) in obj["predicates"].items())
        return Subscribe(seq, Subscription(obj["id"], obj["subscriber"], obj["schema"], preds))
    vals: tuple[tuple[str, Number], ...] = tuple(obj["values"].items())
    return Publish(seq, Event(obj["id"], obj["publisher"], obj["schema"], vals))


def parse_trace_lines(lines: Iterable[str], source: str = "<trace>") -> Trace:
    """Parse and fully validate a v1 trace; errors name `source`, the line and the field."""
    header: dict[str, Any] | None = None
    ops: list[Op] = []
    for number, raw in enumerate(lines, start=1):
        where = f"{source} line {number}"
        if not raw.strip():
            raise InputError(where, "(line)", "empty line")
        obj = _load(raw, where)
        if header is None:
            if not isinstance(obj, dict) or obj.get("format") != FORMAT:
                raise InputError(where, "format", f"not a {FORMAT} header")
            if obj.get("version") != VERSION:
                raise InputError(where, "version", f"unsupported version {obj.get('version')!r}")
            _schema_check(obj, "header", where)
            header = obj
            continue
        _schema_check(obj, "op", where)
        ops.append(_op(obj))
    if header is None:
        raise InputError(f"{source} line 1", "(file)", "empty trace: no header")
    schemas = tuple(
        Schema(
            s["name"],
            tuple(Attribute(a["name"], a["type"], a["min"], a["max"]) for a in s["attributes"]),
        )
        for s in header["schemas"]
    )
    trace = Trace(
        schemas,
        tuple(ops),
        initial_nodes=header["config"]["initial_nodes"],
        matching=header["semantics"]["matching"],
        seed=header["seed"],
        config=_config(header["config"], f"{source} line 1"),
        generator=header["generator"],
        trace_id=header.get("trace_id", Path(source).stem),
    )
    try:
        validate_trace(trace)
    except InputError as e:
        raise InputError(f"{source} {e.where}", e.field, e.message) from None
    return trace


def read_trace(path: str | Path) -> Trace:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(str(p), "(file)", f"cannot read: {e}") from None
    return parse_trace_lines(text.splitlines(), str(p))


def trace_to_lines(trace: Trace) -> list[str]:
    config: dict[str, Any] = {"initial_nodes": trace.initial_nodes}
    default = SystemConfig()
    for f in dataclasses.fields(SystemConfig):
        if f.name == "extra":
            continue
        value = getattr(trace.config, f.name)
        if value != getattr(default, f.name):
            config[f.name] = dict(value) if f.name in TUPLE_FIELDS else value
    header = {
        "format": FORMAT,
        "version": VERSION,
        "trace_id": trace.trace_id,
        "seed": trace.seed,
        "generator": trace.generator,
        "schemas": [
            {
                "name": s.name,
                "attributes": [
                    {"name": a.name, "type": a.type, "min": a.min, "max": a.max}
                    for a in s.attributes
                ],
            }
            for s in trace.schemas
        ],
        "semantics": {"matching": trace.matching},
        "config": config,
    }
    out = [json.dumps(header, separators=(",", ":"))]
    for op in trace.ops:
        obj: dict[str, Any] = {"seq": op.seq}
        if isinstance(op, Join | Leave):
            obj |= {"op": "join" if isinstance(op, Join) else "leave", "node": op.node}
        elif isinstance(op, Fail):
            obj |= {"op": "fail", "nodes": list(op.nodes)}
        elif isinstance(op, Unsubscribe):
            obj |= {"op": "unsubscribe", "id": op.sub_id}
        elif isinstance(op, Subscribe):
            s = op.sub
            preds = {p.attribute: [p.lo, p.hi] for p in s.predicates}
            obj |= {"op": "subscribe", "id": s.id, "subscriber": s.subscriber}
            obj |= {"schema": s.schema, "predicates": preds}
        else:
            e = op.event
            obj |= {"op": "publish", "id": e.id, "publisher": e.publisher, "schema": e.schema}
            obj |= {"values": dict(e.values)}
        out.append(json.dumps(obj, separators=(",", ":")))
    return out


def write_trace(trace: Trace, path: str | Path) -> None:
    Path(path).write_text("\n".join(trace_to_lines(trace)) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class TraceRejection:
    path: str
    error: InputError


def read_trace_batch(paths: Sequence[str | Path]) -> tuple[list[Trace], list[TraceRejection]]:
    """Read many traces: a malformed one is rejected with its error, the others still load."""
    good: list[Trace] = []
    bad: list[TraceRejection] = []
    for p in paths:
        try:
            good.append(read_trace(p))
        except InputError as e:
            bad.append(TraceRejection(str(p), e))
    return good, bad


def expected_lines(trace: Trace, deliveries: Iterable[Delivery]) -> list[str]:
    """The expected-deliveries file: one line per publish, in trace order."""
    by_event: dict[str, list[str]] = {}
    for d in deliveries:
        by_event.setdefault(d.event_id, []).append(d.sub_id)
    return [
        json.dumps({"event": op.event.id, "deliveries": sorted(by_event.get(op.event.id, []))})
        for op in trace.ops
        if isinstance(op, Publish)
    ]


def write_expected(path: str | Path, trace: Trace, deliveries: Iterable[Delivery]) -> None:
    Path(path).write_text("\n".join([*expected_lines(trace, deliveries), ""]), encoding="utf-8")


def read_expected(path: str | Path) -> list[Delivery]:
    out: list[Delivery] = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        obj = _load(line, f"{path} line {number}")
        if not isinstance(obj, dict) or not isinstance(obj.get("deliveries"), list):
            raise InputError(f"{path} line {number}", "deliveries", "expected a list")
        out.extend(Delivery(str(obj["event"]), str(s)) for s in obj["deliveries"])
    return sorted(out)
