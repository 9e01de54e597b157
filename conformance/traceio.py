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
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from reference.config import DELIVERY_STRATEGIES, SystemConfig
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
    """The JSON Schema: next to this file, or as package data from the zip shipped to Spark
    executors (an editable install seen from outside the checkout is a namespace package, which
    importlib.resources cannot read)."""
    beside = Path(__file__).with_name(SCHEMA_FILE)
    if beside.is_file():
        text = beside.read_text("utf-8")
    else:
        package = importlib.resources.files(__package__ or "conformance")
        text = package.joinpath(SCHEMA_FILE).read_text("utf-8")
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


def _finite_float(text: str) -> float:
    """Python reads 1e400 as inf: a number outside the double range is rejected like NaN."""
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"number {text} is outside the range of a double")
    return x


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _load(line: str, where: str) -> Any:
    try:
        return json.loads(
            line,
            object_pairs_hook=_no_duplicates,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
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
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= MAX_INT64:
            raise InputError(where, "seq", f"expected an integer in [0, 2^63 - 1], got {seq!r}")
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


# Numeric SystemConfig fields that are probabilities / must be >= 1; the others must be >= 0.
_PROBABILITIES = ("pub_p", "h_low_fraction", "leaf_update_loss")
_AT_LEAST_ONE = ("id_bits", "digit_bits", "capacity_min", "lnrt_max_records")
# RFC 7493 (I-JSON) §2.2: integers beyond +-(2^53 - 1) are not exchanged reliably; an int
# attribute's domain stays inside, so every value is exact as a double (the Spark oracle).
MAX_SAFE_INT = 2**53 - 1
# seq and seed are 64-bit signed integers (Parquet and Spark BIGINT columns).
MAX_INT64 = 2**63 - 1


def _config(obj: dict[str, Any], where: str, schemas: Sequence[Schema]) -> SystemConfig:
    known = {f.name: f for f in dataclasses.fields(SystemConfig) if f.name != "extra"}
    qualified = {f"{s.name}/{a.name}" for s in schemas for a in s.attributes}
    kwargs: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "initial_nodes":
            continue
        fld = f"config.{key}"
        if key not in known:
            raise InputError(where, fld, "unknown config field")
        if key in TUPLE_FIELDS:
            if not isinstance(value, dict):
                raise InputError(where, fld, "expected an object 'schema/attr' -> number")
            for q, v in value.items():
                if q not in qualified:
                    raise InputError(where, f"{fld}.{q}", "not a qualified attribute schema/attr")
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise InputError(where, f"{fld}.{q}", f"expected a number, got {v!r}")
                if v < 0 or (v == 0 and key != "widening"):
                    raise InputError(where, f"{fld}.{q}", f"must be positive, got {v!r}")
            kwargs[key] = tuple((k, float(v)) for k, v in value.items())
            continue
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
            raise InputError(where, fld, f"bad value {value!r}")
        if key == "delivery" and value not in DELIVERY_STRATEGIES:
            raise InputError(where, fld, f"expected one of {', '.join(DELIVERY_STRATEGIES)}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            low = 1 if key in _AT_LEAST_ONE else 0
            if value < low or (key in _PROBABILITIES and value > 1):
                bound = "in [0, 1]" if key in _PROBABILITIES else f">= {low}"
                raise InputError(where, fld, f"must be {bound}, got {value!r}")
        kwargs[key] = float(value) if isinstance(default, float) else value
    config = SystemConfig(**kwargs)
    if config.capacity_max < config.capacity_min:
        raise InputError(where, "config.capacity_max", "must be >= capacity_min")
    if config.pub_max_level < config.pub_min_level:
        raise InputError(where, "config.pub_max_level", "must be >= pub_min_level")
    cut = dict(config.cutoff)
    for q, h in config.cutoff_h:
        # thesis §3.5: the subscriber's segment length h is below the cut-off c
        if q not in cut or not h < cut[q]:
            raise InputError(where, f"config.cutoff_h.{q}", "needs a cutoff c on q with h < c")
    return config


def _header_numbers(header: dict[str, Any], where: str) -> None:
    """JSON Schema's `integer` admits 3.0; the trace wants integers, and int domains that are
    exact as doubles (I-JSON)."""
    for fld, value in (
        ("seed", header["seed"]),
        ("config.initial_nodes", header["config"]["initial_nodes"]),
    ):
        if not isinstance(value, int) or not -MAX_INT64 - 1 <= value <= MAX_INT64:
            raise InputError(where, fld, f"expected a 64-bit integer literal, got {value!r}")
    for s in header["schemas"]:
        for a in s["attributes"]:
            if a["type"] != "int":
                continue
            for end in ("min", "max"):
                if abs(a[end]) > MAX_SAFE_INT:
                    raise InputError(
                        where,
                        f"schemas[{s['name']}].attributes[{a['name']}].{end}",
                        f"int domain must lie within +-(2^53 - 1) (I-JSON), got {a[end]}",
                    )


def _as_double(value: Any, attr: Attribute | None) -> Any:
    """A float attribute's integer literal denotes the nearest double (FORMAT.md, "Numbers"),
    so every reader compares the same doubles."""
    if (
        attr is None
        or attr.type != "float"
        or isinstance(value, bool)
        or not isinstance(value, int)
    ):
        return value
    try:
        return float(value)
    except OverflowError:
        return value  # rejected as outside the domain by validate_trace


def _op(obj: dict[str, Any], schemas: dict[str, Schema]) -> Op:
    seq, kind = obj["seq"], obj["op"]
    if kind == "join":
        return Join(seq, obj["node"])
    if kind == "leave":
        return Leave(seq, obj["node"])
    if kind == "fail":
        return Fail(seq, tuple(obj["nodes"]))
    if kind == "unsubscribe":
        return Unsubscribe(seq, obj["id"])
    schema = schemas.get(obj["schema"])
    attrs = schema.by_name if schema is not None else {}
    if kind == "subscribe":
        preds = tuple(
            Predicate(a, _as_double(lo, attrs.get(a)), _as_double(hi, attrs.get(a)))
            for a, (lo, hi) in obj["predicates"].items()
        )
        return Subscribe(seq, Subscription(obj["id"], obj["subscriber"], obj["schema"], preds))
    vals: tuple[tuple[str, Number], ...] = tuple(
        (a, _as_double(v, attrs.get(a))) for a, v in obj["values"].items()
    )
    return Publish(seq, Event(obj["id"], obj["publisher"], obj["schema"], vals))


def _schemas(header: dict[str, Any]) -> tuple[Schema, ...]:
    out = []
    for s in header["schemas"]:
        attrs = []
        for a in s["attributes"]:
            lo, hi = a["min"], a["max"]
            if a["type"] == "float":
                lo, hi = _as_double(lo, _FLOAT), _as_double(hi, _FLOAT)
            attrs.append(Attribute(a["name"], a["type"], lo, hi))
        out.append(Schema(s["name"], tuple(attrs)))
    return tuple(out)


_FLOAT = Attribute("_", "float", 0.0, 1.0)


def parse_trace_lines(lines: Iterable[str], source: str = "<trace>") -> Trace:
    """Parse and fully validate a v1 trace; errors name `source`, the line and the field."""
    header: dict[str, Any] | None = None
    schemas: tuple[Schema, ...] = ()
    by_name: dict[str, Schema] = {}
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
            _header_numbers(obj, where)
            header = obj
            schemas = _schemas(obj)
            by_name = {s.name: s for s in schemas}
            continue
        _schema_check(obj, "op", where)
        ops.append(_op(obj, by_name))
    if header is None:
        raise InputError(f"{source} line 1", "(file)", "empty trace: no header")
    trace = Trace(
        schemas,
        tuple(ops),
        initial_nodes=header["config"]["initial_nodes"],
        matching=header["semantics"]["matching"],
        seed=header["seed"],
        config=_config(header["config"], f"{source} line 1", schemas),
        generator=header["generator"],
        trace_id=header.get("trace_id", Path(source).stem),
    )
    try:
        validate_trace(trace)
    except InputError as e:
        raise InputError(f"{source} {e.where}", e.field, e.message) from None
    return trace


def _read_lines(path: str | Path) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(str(path), "(file)", f"cannot read: {e}") from None


def read_trace(path: str | Path) -> Trace:
    return parse_trace_lines(_read_lines(path), str(path))


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
    out = [json.dumps(header, separators=(",", ":"), allow_nan=False)]
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
        out.append(json.dumps(obj, separators=(",", ":"), allow_nan=False))
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


def parse_expected_lines(lines: Iterable[str], source: str = "<expected>") -> list[Delivery]:
    """Read an expected-deliveries file: `{"event": id, "deliveries": [sub ids]}` per line."""
    out: list[Delivery] = []
    events: set[str] = set()
    for number, line in enumerate(lines, 1):
        where = f"{source} line {number}"
        obj = _load(line, where)
        if not isinstance(obj, dict) or set(obj) != {"event", "deliveries"}:
            raise InputError(where, "(line)", 'expected {"event": ..., "deliveries": [...]}')
        event, subs = obj["event"], obj["deliveries"]
        if not isinstance(event, str) or not event:
            raise InputError(where, "event", f"expected an event id, got {event!r}")
        if event in events:
            raise InputError(where, "event", f"event {event!r} listed twice")
        events.add(event)
        if not isinstance(subs, list) or not all(isinstance(x, str) and x for x in subs):
            raise InputError(where, "deliveries", "expected a list of subscription ids")
        if len(set(subs)) != len(subs):
            raise InputError(where, "deliveries", "a subscription is listed twice")
        out.extend(Delivery(event, sub) for sub in subs)
    return sorted(out)


def read_expected(path: str | Path) -> list[Delivery]:
    return parse_expected_lines(_read_lines(path), str(path))
