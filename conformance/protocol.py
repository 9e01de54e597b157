"""The process protocol between the conformance suite and an outside implementation
(conformance/PROTOCOL.md), as data: the requests the suite writes and the replies it accepts.

One JSON object per line in both directions (NDJSON over stdin/stdout; stderr is free for
logs). Parsing a reply never raises anything but `ProtocolError`, whose message says what is
wrong with the line; the adapter adds the output line number and the op it was waiting for.

Version 2 (PROTOCOL.md, "Version 2"; conformance/OBSERVATIONS.md) adds, for a program that
opts in with `protocol: 2` and a claimed `system` in its `init_ok`, `obs` lines: one protocol
observation each, parsed into `Observed(seq, Observation)` with the limits of OBSERVATIONS.md
enforced here. A version-1 program ignores the `protocol` field of `init` and is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pubsub_spec.conformance.protocol_rules import CLAIMABLE
from pubsub_spec.conformance.protocol_rules.base import Observed
from pubsub_spec.reference.sim.observe import SEND, STATE, Observation
from pubsub_spec.reference.sim.system import FEATURES as SYSTEM_FEATURES

PROTOCOL_VERSION = 2  # sent in `init`; a program answers with the version it speaks (1 or 2)
VERSIONS = (1, 2)

# What an implementation can say it supports in `init_ok.features`. A trace that needs a
# feature the implementation does not list is `skipped(reason)`, except for an optional one
# (`advertisements`): the trace then runs without its advertisement ops (PROTOCOL.md).
# The list is the simulated systems' (reference.sim.system.FEATURES): one vocabulary for both.
FEATURES: tuple[str, ...] = SYSTEM_FEATURES

# Well-known error codes (after Maelstrom's), with whether an op failing with them certainly
# did not happen. Informative only: the `definite` field of the error is what counts, and an
# implementation may use any other code.
ERROR_CODES: Mapping[str, bool] = {
    "timeout": False,
    "crash": False,
    "temporarily-unavailable": True,
    "not-supported": True,
    "malformed-request": True,
    "abort": True,
    "node-not-found": True,
}

MAX_LINE_CHARS = 1 << 20  # a reply line longer than this is garbage

# Limits of an `obs` line (conformance/OBSERVATIONS.md, "Limits"; observation.schema.json).
MAX_OBS_NAME_CHARS = 256  # name, node, to, event, sub, a field's key, a string value
MAX_OBS_FIELDS = 64  # fields per observation
MAX_OBS_DEPTH = 4  # nesting of lists in a field's value
MAX_OBS_LIST = 10_000  # items of one list in a field's value
MAX_OBS_SEQ = (1 << 63) - 1
MAX_OBSERVATIONS = 10_000_000  # per trace; beyond: deviates (limits/too-many-observations)


class ProtocolError(ValueError):
    """A line from the implementation that is not a valid reply."""


# --- requests (suite -> implementation) ------------------------------------------------------


def init_request(header: Mapping[str, Any]) -> dict[str, Any]:
    """`init`: the trace header's schemas, semantics and config, plus the initial peers."""
    initial = int(header["config"]["initial_nodes"])
    return {
        "type": "init",
        "protocol": PROTOCOL_VERSION,
        "trace_id": header.get("trace_id", ""),
        "schemas": header["schemas"],
        "semantics": header["semantics"],
        "config": header["config"],
        "nodes": [f"n{i}" for i in range(initial)],
    }


def op_request(op: Mapping[str, Any]) -> dict[str, Any]:
    """`op`: the op's fields exactly as in the trace line, under `type: op`."""
    return {"type": "op", **op}


def end_request() -> dict[str, Any]:
    return {"type": "end"}


def encode(message: Mapping[str, Any]) -> str:
    """One line of NDJSON (no trailing newline); NaN and infinities are not JSON."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False)


# --- replies (implementation -> suite) -------------------------------------------------------


@dataclass(frozen=True)
class InitOk:
    features: tuple[str, ...]
    name: str = ""
    protocol: int = 1  # the version the program speaks (2: it reports observations)
    system: str = ""  # the system it claims (version 2; one of CLAIMABLE)


@dataclass(frozen=True)
class Deliver:
    event: str
    sub: str


@dataclass(frozen=True)
class Ack:
    seq: int


@dataclass(frozen=True)
class Error:
    seq: int
    code: str
    definite: bool
    text: str = ""

    def describe(self) -> str:
        did = "certainly did not happen" if self.definite else "may have happened"
        return f"code {self.code!r}, {did}" + (f": {self.text}" if self.text else "")


@dataclass(frozen=True)
class EndOk:
    pass


Reply = InitOk | Deliver | Ack | Error | EndOk | Observed

_FIELDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    # type: (required fields, optional fields); unknown fields are allowed and ignored, so
    # that implementations may add their own (e.g. a delivering node, timings).
    "init_ok": (frozenset({"features"}), frozenset({"name", "protocol", "system"})),
    "deliver": (frozenset({"event", "sub"}), frozenset()),
    "ack": (frozenset({"seq"}), frozenset()),
    "error": (frozenset({"seq", "code", "definite"}), frozenset({"text"})),
    "end_ok": (frozenset(), frozenset()),
    "obs": (
        frozenset({"seq", "kind", "name", "node"}),
        frozenset({"to", "event", "sub", "fields"}),
    ),
}


def _reject_constant(name: str) -> Any:
    raise ProtocolError(f"{name} is not JSON")


def _short(text: str, limit: int = 80) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _id(obj: Mapping[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str) or not value:
        raise ProtocolError(f"{obj['type']}: field {key!r} must be a non-empty string")
    return value


def _seq(obj: Mapping[str, Any]) -> int:
    value = obj["seq"]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtocolError(f"{obj['type']}: field 'seq' must be an integer, got {value!r}")
    return value


def parse_reply(line: str) -> Reply:
    """A reply line, checked; `ProtocolError` says what is wrong (quoting the line)."""
    if len(line) > MAX_LINE_CHARS:
        raise ProtocolError(f"line of {len(line)} characters is too long")
    try:
        obj = json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ProtocolError(f"not JSON ({e.msg} at column {e.colno}): {_short(line)}") from None
    except RecursionError:
        raise ProtocolError(f"JSON nested too deeply: {_short(line)}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"not a JSON object: {_short(line)}")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise ProtocolError(
            f"unknown message type {kind!r} (expected one of {', '.join(_FIELDS)}): "
            f"{_short(line)}"
        )
    required = _FIELDS[kind][0]
    missing = sorted(required - obj.keys())
    if missing:
        raise ProtocolError(f"{kind}: missing field(s) {', '.join(missing)}: {_short(line)}")
    if kind == "deliver":
        return Deliver(_id(obj, "event"), _id(obj, "sub"))
    if kind == "ack":
        return Ack(_seq(obj))
    if kind == "end_ok":
        return EndOk()
    if kind == "obs":
        return _observed(obj)
    if kind == "init_ok":
        feats = obj["features"]
        if not isinstance(feats, list) or not all(isinstance(f, str) for f in feats):
            raise ProtocolError("init_ok: field 'features' must be a list of strings")
        name = obj.get("name", "")
        version, system = _claim(obj)
        return InitOk(tuple(feats), name if isinstance(name, str) else "", version, system)
    code = obj["code"]
    if isinstance(code, bool) or not isinstance(code, str | int):
        raise ProtocolError(f"error: field 'code' must be a string or an integer, got {code!r}")
    definite = obj["definite"]
    if not isinstance(definite, bool):
        raise ProtocolError(f"error: field 'definite' must be true or false, got {definite!r}")
    text = obj.get("text", "")
    return Error(_seq(obj), str(code), definite, text if isinstance(text, str) else str(text))


def _claim(obj: Mapping[str, Any]) -> tuple[int, str]:
    """`init_ok`'s (protocol version, claimed system): (1, "") for a version-1 program."""
    version = obj.get("protocol", 1)
    if isinstance(version, bool) or version not in VERSIONS:
        raise ProtocolError(
            f"init_ok: field 'protocol' must be 1 or 2, got {_short(json.dumps(version))}"
        )
    system = obj.get("system")
    if version == 1:
        if system is not None:
            raise ProtocolError("init_ok: field 'system' needs 'protocol': 2")
        return 1, ""
    if system is None:
        raise ProtocolError(
            "init_ok: 'protocol': 2 needs field 'system' (one of " + ", ".join(CLAIMABLE) + ")"
        )
    if not isinstance(system, str) or system not in CLAIMABLE:
        raise ProtocolError(
            f"init_ok: field 'system' is {_short(json.dumps(system))}, not a claimable system "
            "(one of " + ", ".join(CLAIMABLE) + ")"
        )
    return 2, system


def _obs_name(obj: Mapping[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str) or not value:
        raise ProtocolError(f"obs: field {key!r} must be a non-empty string")
    if len(value) > MAX_OBS_NAME_CHARS:
        raise ProtocolError(
            f"obs: field {key!r} has {len(value)} characters (at most {MAX_OBS_NAME_CHARS})"
        )
    return value


def _obs_value(value: Any, where: str, depth: int = 0) -> None:
    """Check a field's value as OBSERVATIONS.md allows it: a scalar or a list of values nested
    at most MAX_OBS_DEPTH deep (kept as parsed: lists stay lists, as a built-in reports them)."""
    if value is None or isinstance(value, bool | int | float):
        return
    if isinstance(value, str):
        if len(value) > MAX_OBS_NAME_CHARS:
            raise ProtocolError(
                f"obs: {where} is a string of {len(value)} characters "
                f"(at most {MAX_OBS_NAME_CHARS})"
            )
        return
    if isinstance(value, list):
        if depth >= MAX_OBS_DEPTH:
            raise ProtocolError(f"obs: {where} nests lists deeper than {MAX_OBS_DEPTH}")
        if len(value) > MAX_OBS_LIST:
            raise ProtocolError(
                f"obs: {where} is a list of {len(value)} items (at most {MAX_OBS_LIST})"
            )
        for v in value:
            _obs_value(v, where, depth + 1)
        return
    raise ProtocolError(f"obs: {where} must be a JSON scalar or a list, not an object")


def _observed(obj: Mapping[str, Any]) -> Observed:
    seq = _seq(obj)
    if not 0 <= seq <= MAX_OBS_SEQ:
        raise ProtocolError(f"obs: field 'seq' must be a non-negative integer, got {seq}")
    kind = obj["kind"]
    if kind not in (SEND, STATE):
        raise ProtocolError(
            f"obs: field 'kind' must be 'send' or 'state', got {_short(json.dumps(kind))}"
        )
    name, node = _obs_name(obj, "name"), _obs_name(obj, "node")
    if kind == SEND and "to" not in obj:
        raise ProtocolError("obs: a 'send' needs field 'to' (the receiver)")
    if kind == STATE and "to" in obj:
        raise ProtocolError("obs: a 'state' has no field 'to' (put a peer it names in 'fields')")
    to = _obs_name(obj, "to") if "to" in obj else None
    event = _obs_name(obj, "event") if obj.get("event") is not None else None
    sub = _obs_name(obj, "sub") if obj.get("sub") is not None else None
    raw = obj.get("fields", {})
    if not isinstance(raw, dict):
        raise ProtocolError("obs: field 'fields' must be a JSON object")
    if len(raw) > MAX_OBS_FIELDS:
        raise ProtocolError(
            f"obs: field 'fields' has {len(raw)} entries (at most {MAX_OBS_FIELDS})"
        )
    for key, value in raw.items():
        if not key or len(key) > MAX_OBS_NAME_CHARS:
            raise ProtocolError(
                f"obs: a key of 'fields' must have 1 to {MAX_OBS_NAME_CHARS} characters"
            )
        _obs_value(value, f"fields.{key}")
    return Observed(seq, Observation(kind, name, node, to, event, sub, raw))


def _wire_value(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_wire_value(v) for v in value]
    return value


def observation_to_json(obs: Observation) -> dict[str, Any]:
    """An observation's wire fields with tuples as JSON lists (Observation.to_json keeps a
    field's value as it was built)."""
    out = obs.to_json()
    if "fields" in out:
        out["fields"] = {k: _wire_value(v) for k, v in out["fields"].items()}
    return out


def reply_to_json(reply: Reply) -> dict[str, Any]:
    """The wire form of a reply (for implementations written in Python, and for tests)."""
    if isinstance(reply, InitOk):
        out: dict[str, Any] = {"type": "init_ok", "features": list(reply.features)}
        if reply.name:
            out["name"] = reply.name
        if reply.protocol != 1:
            out["protocol"] = reply.protocol
        if reply.system:
            out["system"] = reply.system
        return out
    if isinstance(reply, Observed):
        return {"type": "obs", "seq": reply.seq, **observation_to_json(reply.obs)}
    if isinstance(reply, Deliver):
        return {"type": "deliver", "event": reply.event, "sub": reply.sub}
    if isinstance(reply, Ack):
        return {"type": "ack", "seq": reply.seq}
    if isinstance(reply, Error):
        out = {"type": "error", "seq": reply.seq, "code": reply.code, "definite": reply.definite}
        if reply.text:
            out["text"] = reply.text
        return out
    return {"type": "end_ok"}


# --- steps (PROTOCOL.md, "Steps"; docs/steps.md) ---------------------------------------------
# A separate dialogue of `pubsub-spec verify --steps`: one handler of one node per `step`.

STEPS_MODE = "steps"  # the `mode` of a steps `init`


def steps_init_request(systems: list[str]) -> dict[str, Any]:
    """`init` of a steps dialogue: the systems whose step vectors will be sent."""
    return {"type": "init", "protocol": PROTOCOL_VERSION, "mode": STEPS_MODE, "systems": systems}


def step_request(
    step_id: str, system: str, handler: str, pre: Any, step_input: Any
) -> dict[str, Any]:
    """`step`: one vector's pre-state and input; the answer is a `step_ok` with the same id."""
    return {"type": "step", "id": step_id, "system": system, "handler": handler, "pre": pre,
            "input": step_input}  # fmt: skip


@dataclass(frozen=True)
class StepsInitOk:
    """`init_ok` of a steps dialogue: the handlers the program supports, per system."""

    steps: Mapping[str, tuple[str, ...]]
    name: str = ""


@dataclass(frozen=True)
class StepOk:
    """A step's result: the post-state and sends, or `invalid` with the reason."""

    id: str
    post: Any = None
    sends: Any = None
    invalid: str | None = None


def parse_step_reply(line: str) -> StepsInitOk | StepOk | EndOk:
    """A reply line of the steps dialogue, checked; `ProtocolError` says what is wrong."""
    if len(line) > MAX_STEP_LINE_CHARS:
        raise ProtocolError(f"line of {len(line)} characters is too long")
    try:
        obj = json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ProtocolError(f"not JSON ({e.msg} at column {e.colno}): {_short(line)}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"not a JSON object: {_short(line)}")
    kind = obj.get("type")
    if kind == "end_ok":
        return EndOk()
    if kind == "init_ok":
        steps = obj.get("steps")
        if not isinstance(steps, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(h, str) for h in v)
            for k, v in steps.items()
        ):
            raise ProtocolError("init_ok: field 'steps' must map systems to lists of handlers")
        name = obj.get("name", "")
        return StepsInitOk({k: tuple(v) for k, v in steps.items()},
                           name if isinstance(name, str) else "")  # fmt: skip
    if kind != "step_ok":
        raise ProtocolError(f"expected step_ok, init_ok or end_ok, got type {kind!r}")
    step_id = obj.get("id")
    if not isinstance(step_id, str):
        raise ProtocolError("step_ok: field 'id' must be a string")
    if "invalid" in obj:
        reason = obj["invalid"]
        if not isinstance(reason, str):
            raise ProtocolError("step_ok: field 'invalid' must be a string (the reason)")
        return StepOk(step_id, invalid=reason)
    missing = [k for k in ("post", "sends") if k not in obj]
    if missing:
        raise ProtocolError(f"step_ok: missing field(s) {', '.join(missing)} (or 'invalid')")
    if not isinstance(obj["sends"], list):
        raise ProtocolError("step_ok: field 'sends' must be a list")
    return StepOk(step_id, obj["post"], obj["sends"])


MAX_STEP_LINE_CHARS = 1 << 24  # a step's line carries a whole node state: 16 MiB
