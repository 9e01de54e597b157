"""Trace format v1 and v2: NDJSON reading, writing and validation (conformance/FORMAT.md).

Line 1 is the header; each further line one op. Every error is an `InputError` that names the
file, the line and the field: JSON syntax, NaN/Infinity literals, duplicate keys, the JSON
Schema (`trace.schema.json`), unknown config fields, then the semantic checks of
`reference.common.ops.validate_trace`.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
import math
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from pubsub_spec.conformance.limits import (
    MAX_CONFIG_INT,
    MAX_LINE_CHARS,
    MAX_LIST,
    MAX_NAME_CHARS,
    MAX_NODES,
    MAX_TRACE_OPS,
)
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    Number,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import (
    Advertise,
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Timing,
    Trace,
    Unadvertise,
    Unsubscribe,
    has_advertisements,
    validate_trace,
)
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.system import ConfigCodec
from pubsub_spec.reference.thesis.config import SECTION as THESIS_SECTION
from pubsub_spec.reference.thesis.config import parse_config as parse_thesis_config

SCHEMA_FILE = "trace.schema.json"
# In the order of the JSON Schema's `$defs/op/oneOf`; advertise/unadvertise need version 2.
V2_OP_KINDS = ("advertise", "unadvertise")
OP_KINDS = ("join", "leave", "fail", "subscribe", "unsubscribe", "publish", *V2_OP_KINDS)
FORMAT = "pubsub-trace"
VERSIONS = (1, 2)


@cache
def _schema() -> dict[str, Any]:
    """The JSON Schema: next to this file, or as package data from the zip shipped to Spark
    executors (an editable install seen from outside the checkout is a namespace package, which
    importlib.resources cannot read)."""
    beside = Path(__file__).with_name(SCHEMA_FILE)
    if beside.is_file():
        text = beside.read_text("utf-8")
    else:
        package = importlib.resources.files(__package__ or "pubsub_spec.conformance")
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


# Reading limits: a trace line nests a few levels; a number literal beyond these
# digits is outside the double range anyway; a file beyond MAX_FILE_BYTES is not read.
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 400
MAX_FILE_BYTES = 1 << 30
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _finite_int(text: str) -> int:
    """FORMAT.md, "Numbers": an integer literal beyond the double range is rejected like 1e400
    (checked on its length first: converting a 10^6-digit literal is itself the attack)."""
    if len(text.lstrip("-")) > MAX_NUMBER_CHARS:
        digits = f"{text[:20]}... ({len(text)} digits)"
        raise ValueError(f"number {digits} is outside the range of a double")
    x = int(text)
    try:
        float(x)
    except OverflowError:
        raise ValueError(f"number {text[:20]}... is outside the range of a double") from None
    return x


def _check_depth(line: str, where: str) -> None:
    """Reject nesting deeper than MAX_DEPTH before json recurses into it."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for m in _BRACKETS.finditer(line):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                at = f"column {m.start() + 1}"
                raise InputError(where, "(json)", f"nested deeper than {MAX_DEPTH} levels at {at}")
        elif c in "]}":
            depth -= 1


def _load(line: str, where: str) -> Any:
    _check_depth(line, where)
    try:
        return json.loads(
            line,
            object_pairs_hook=_no_duplicates,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_finite_int,
        )
    except json.JSONDecodeError as e:
        raise InputError(where, "(json)", f"invalid JSON: {e.msg} at column {e.colno}") from None
    except ValueError as e:
        raise InputError(where, "(json)", str(e)) from None
    except RecursionError:
        raise InputError(where, "(json)", "nested too deeply") from None


def _schema_check(obj: Any, part: str, where: str) -> None:
    """Check one line against the JSON Schema; name the first offending field."""
    if part == "op":
        if not isinstance(obj, dict):
            raise InputError(where, "(line)", "an op must be a JSON object")
        seq = obj.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= MAX_SAFE_INT:
            raise InputError(where, "seq", f"expected an integer in [0, 2^53 - 1], got {seq!r}")
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


# RFC 7493 (I-JSON) §2.2: integers beyond +-(2^53 - 1) are not exchanged reliably; an int
# attribute's domain stays inside, so every value is exact as a double (the Spark oracle).
MAX_SAFE_INT = 2**53 - 1
# seq, seed and initial_nodes stay inside +-(2^53 - 1) too (FORMAT.md, "Numbers"): a
# client that reads JSON numbers as doubles (JavaScript and many others) must be able to echo a
# seq exactly. They are BIGINT columns in Parquet and Spark, which hold them with room to spare.
# The system-neutral fields of the header's config (FORMAT.md, "Header"): the initial peers and
# the op timing (reference.common.ops.Timing); v2 adds `systems`, one section per system.
TIMING_FIELDS = tuple(f.name for f in dataclasses.fields(Timing))


def _timing(obj: dict[str, Any], where: str) -> Timing:
    kwargs: dict[str, float] = {}
    for key in TIMING_FIELDS:
        if key not in obj:
            continue
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise InputError(where, f"config.{key}", f"must be a number >= 0, got {value!r}")
        kwargs[key] = float(value)
    return Timing(**kwargs)


def _sections(
    obj: dict[str, Any], version: int, where: str, schemas: Sequence[Schema]
) -> tuple[tuple[str, object], ...]:
    """The per-system sections. v1: every config field other than the neutral ones belongs to
    the thesis system (v1 traces mean what they meant); v2: `config.systems.NAME`, one object
    per registered system, unknown systems and unknown keys rejected."""
    neutral = ("initial_nodes", *TIMING_FIELDS)
    if version == 1:
        flat = {k: v for k, v in obj.items() if k not in neutral}
        if not flat:  # no thesis field: no section (the defaults), as the writer left it
            return ()
        return ((THESIS_SECTION, parse_thesis_config(flat, where, schemas, prefix="config")),)
    for key in obj:
        if key not in (*neutral, "systems"):
            raise InputError(where, f"config.{key}", "unknown config field")
    systems = obj.get("systems", {})
    if not isinstance(systems, dict):
        raise InputError(where, "config.systems", "expected an object: system name -> section")
    out: list[tuple[str, object]] = []
    for name, section in systems.items():
        info = SYSTEMS.get(name)
        if info is None or info.config is None:
            known = ", ".join(sorted(n for n, s in SYSTEMS.items() if s.config is not None))
            raise InputError(
                where, f"config.systems.{name}", f"unknown system section (known: {known})"
            )
        if not isinstance(section, dict):
            raise InputError(where, f"config.systems.{name}", "expected an object")
        out.append((name, info.config.parse(section, where, schemas)))
    return tuple(sorted(out, key=lambda kv: kv[0]))


def _codec(name: str) -> ConfigCodec:
    info = SYSTEMS.get(name)
    if info is None or info.config is None:
        raise ValueError(f"trace has a section for {name!r}, which has no config codec")
    return info.config


def _config_json(trace: Trace) -> tuple[int, dict[str, Any]]:
    """The header's version and config. A writer emits the lowest version that expresses the
    trace (FORMAT.md, "Versions"): v1 when only the thesis system has a section and there are
    no advertisement ops, so readers of v1 keep reading what they read; v2 otherwise."""
    config: dict[str, Any] = {"initial_nodes": trace.initial_nodes}
    timing = {
        k: getattr(trace.timing, k)
        for k in TIMING_FIELDS
        if getattr(trace.timing, k) != getattr(Timing(), k)
    }
    sections = {name: _codec(name).to_json(value) for name, value in trace.sections}
    if set(sections) <= {THESIS_SECTION} and not has_advertisements(trace):
        # v1 order: the thesis fields, then the timing (as the v1 config dataclass had them)
        return 1, config | sections.get(THESIS_SECTION, {}) | timing
    return 2, config | timing | {"systems": sections}


def _sizes(obj: Any, where: str, path: str = "") -> None:
    """Every string and array of a line within conformance/limits.py's bounds (a 10 MB id or
    a million-element list is refused here, before anything is built from it)."""
    if isinstance(obj, str):
        if len(obj) > MAX_NAME_CHARS:
            what = f"string of {len(obj)} characters, at most {MAX_NAME_CHARS}"
            raise InputError(where, path or "(line)", what)
    elif isinstance(obj, list | dict):
        if len(obj) > MAX_LIST:
            raise InputError(where, path or "(line)", f"{len(obj)} elements, at most {MAX_LIST}")
        if isinstance(obj, dict):
            for k, v in obj.items():
                _sizes(k, where, f"{path}.{k[:40]}".lstrip("."))
                _sizes(v, where, f"{path}.{k[:40]}".lstrip("."))
        else:
            for i, v in enumerate(obj):
                _sizes(v, where, f"{path}[{i}]")


def _header_bounds(header: dict[str, Any], where: str) -> None:
    """The header's sizes within conformance/limits.py: initial nodes, and every integer of a
    system's section (interval counts, depths: each sizes a structure the system builds)."""
    nodes = header["config"]["initial_nodes"]
    if nodes > MAX_NODES:
        raise InputError(where, "config.initial_nodes", f"{nodes} nodes, at most {MAX_NODES}")

    def walk(value: Any, fld: str) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int) and abs(value) > MAX_CONFIG_INT:
            raise InputError(where, fld, f"{value} is beyond the bound of {MAX_CONFIG_INT}")
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{fld}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{fld}[{i}]")

    systems = header["config"].get("systems")
    walk(systems if systems is not None else {
        k: v for k, v in header["config"].items() if k != "initial_nodes"
    }, "config.systems" if systems is not None else "config")  # fmt: skip


def _header_numbers(header: dict[str, Any], where: str) -> None:
    """JSON Schema's `integer` admits 3.0; the trace wants integers, and int domains that are
    exact as doubles (I-JSON)."""
    for fld, value in (
        ("seed", header["seed"]),
        ("config.initial_nodes", header["config"]["initial_nodes"]),
    ):
        if not isinstance(value, int) or not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise InputError(
                where, fld, f"expected an integer literal within +-(2^53 - 1), got {value!r}"
            )
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
    if kind == "unadvertise":
        return Unadvertise(seq, obj["id"])
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
    if kind == "advertise":
        preds = tuple(
            Predicate(a, _as_double(lo, attrs.get(a)), _as_double(hi, attrs.get(a)))
            for a, (lo, hi) in obj["predicates"].items()
        )
        return Advertise(seq, obj["id"], obj["publisher"], obj["schema"], preds)
    vals: tuple[tuple[str, Number], ...] = tuple(
        (a, _as_double(v, attrs.get(a))) for a, v in obj["values"].items()
    )
    return Publish(seq, Event(obj["id"], obj["publisher"], obj["schema"], vals), obj.get("adv"))


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
        if len(raw) > MAX_LINE_CHARS:
            raise InputError(where, "(line)", f"{len(raw)} characters, at most {MAX_LINE_CHARS}")
        if len(ops) >= MAX_TRACE_OPS:
            raise InputError(where, "(file)", f"more than {MAX_TRACE_OPS} ops")
        obj = _load(raw, where)
        _sizes(obj, where)
        if header is None:
            if not isinstance(obj, dict) or obj.get("format") != FORMAT:
                raise InputError(where, "format", f"not a {FORMAT} header")
            if obj.get("version") not in VERSIONS:
                raise InputError(where, "version", f"unsupported version {obj.get('version')!r}")
            _schema_check(obj, "header", where)
            _header_numbers(obj, where)
            _header_bounds(obj, where)
            header = obj
            schemas = _schemas(obj)
            by_name = {s.name: s for s in schemas}
            continue
        _schema_check(obj, "op", where)
        if obj["op"] in V2_OP_KINDS and header["version"] < 2:
            raise InputError(where, "op", f"op {obj['op']!r} needs trace format version 2")
        if "adv" in obj and header["version"] < 2:
            raise InputError(where, "adv", "field 'adv' needs trace format version 2")
        ops.append(_op(obj, by_name))
    if header is None:
        raise InputError(f"{source} line 1", "(file)", "empty trace: no header")
    trace = Trace(
        schemas,
        tuple(ops),
        initial_nodes=header["config"]["initial_nodes"],
        matching=header["semantics"]["matching"],
        seed=header["seed"],
        timing=_timing(header["config"], f"{source} line 1"),
        sections=_sections(header["config"], header["version"], f"{source} line 1", schemas),
        generator=header["generator"],
        trace_id=header.get("trace_id", Path(source).stem),
    )
    try:
        validate_trace(trace)
    except InputError as e:
        raise InputError(f"{source} {e.where}", e.field, e.message) from None
    return trace


def read_text_file(path: str | Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """A regular file's UTF-8 text, at most `max_bytes`: a FIFO, a device or a directory is
    rejected without blocking on it (opened O_NONBLOCK, checked with fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(str(path), "(file)", f"cannot read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(str(path), "(file)", "not a regular file")
        if st.st_size > max_bytes:
            raise InputError(str(path), "(file)", f"larger than {max_bytes} bytes")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise InputError(str(path), "(file)", f"larger than {max_bytes} bytes")
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(str(path), "(file)", f"not UTF-8: {e.reason} at byte {e.start}") from None
    except OSError as e:
        raise InputError(str(path), "(file)", f"cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def ndjson_lines(text: str) -> list[str]:
    """The lines of an NDJSON text: split at "\n" only (a trailing "\r" is JSON whitespace).
    Not `str.splitlines`, which also splits at U+2028, U+2029, U+0085 and others, characters
    a JSON string may hold as they are (RFC 8259 §7)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _read_lines(path: str | Path) -> list[str]:
    return ndjson_lines(read_text_file(path))


def confined(directory: Path, name: str, where: str, field: str) -> Path:
    """`directory/name`, rejected unless it stays inside `directory` (no absolute path, no
    `..`, no symbolic link leading out)."""
    if not name or Path(name).is_absolute() or "\x00" in name:
        raise InputError(where, field, f"not a relative path: {name!r}")
    path = directory / name
    try:
        inside = path.resolve().is_relative_to(directory.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = False
    if not inside:
        raise InputError(where, field, f"{name!r} points outside {directory}")
    return path


# A trace id names files (ID.ndjson, ID.expected.ndjson, shrunk traces) and appears in reports.
TRACE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def file_trace_id(path: str | Path) -> str:
    """The trace id a file name gives: `X.ndjson` -> `X`."""
    return Path(path).name.removesuffix(".ndjson")


def check_trace_id(trace_id: str, path: str | Path, seen: dict[str, str] | None = None) -> None:
    """In a trace set: the id is a plain name, equals the file name, and is unique (`seen`
    maps ids to the file that used them first and is updated)."""
    where = f"{path} line 1"
    if not TRACE_ID.fullmatch(trace_id):
        what = "is not a name of letters, digits, '.', '_', '-' (at most 200)"
        raise InputError(where, "trace_id", f"{trace_id[:80]!r} {what}")
    if trace_id != file_trace_id(path):
        raise InputError(
            where, "trace_id", f"{trace_id!r} differs from the file name {Path(path).name!r}"
        )
    if seen is not None:
        if trace_id in seen:
            raise InputError(where, "trace_id", f"{trace_id!r} is also the id of {seen[trace_id]}")
        seen[trace_id] = str(path)


def read_trace(path: str | Path) -> Trace:
    return parse_trace_lines(_read_lines(path), str(path))


def header_object(trace: Trace) -> dict[str, Any]:
    """The header line of a trace, as the object `trace_to_lines` writes."""
    version, config = _config_json(trace)
    return {
        "format": FORMAT,
        "version": version,
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


def op_object(op: Op) -> dict[str, Any]:
    """The line of one op, as the object `trace_to_lines` writes."""
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
    elif isinstance(op, Publish):
        e = op.event
        obj |= {"op": "publish", "id": e.id, "publisher": e.publisher, "schema": e.schema}
        obj |= {"values": dict(e.values)}
        if op.adv is not None:
            obj["adv"] = op.adv
    elif isinstance(op, Advertise):
        preds = {p.attribute: [p.lo, p.hi] for p in op.predicates}
        obj |= {"op": "advertise", "id": op.id, "publisher": op.publisher}
        obj |= {"schema": op.schema, "predicates": preds}
    else:
        obj |= {"op": "unadvertise", "id": op.id}
    return obj


def trace_to_lines(trace: Trace) -> list[str]:
    objects = [header_object(trace), *(op_object(op) for op in trace.ops)]
    return [json.dumps(o, separators=(",", ":"), allow_nan=False) for o in objects]


def write_trace(trace: Trace, path: str | Path) -> None:
    Path(path).write_text("\n".join(trace_to_lines(trace)) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class TraceRejection:
    path: str
    error: InputError


def read_trace_batch(paths: Sequence[str | Path]) -> tuple[list[Trace], list[TraceRejection]]:
    """Read many traces: a malformed one is rejected with its error, the others still load. A
    trace set's ids are unique and equal their file names (`check_trace_id`)."""
    good: list[Trace] = []
    bad: list[TraceRejection] = []
    seen: dict[str, str] = {}
    for p in paths:
        try:
            trace = read_trace(p)
            check_trace_id(trace.trace_id, p, seen)
            good.append(trace)
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
