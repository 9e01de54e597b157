"""The process protocol between the conformance suite and an outside implementation
(conformance/PROTOCOL.md), as data: the requests the suite writes and the replies it accepts.

One JSON object per line in both directions (NDJSON over stdin/stdout; stderr is free for
logs). Parsing a reply never raises anything but `ProtocolError`, whose message says what is
wrong with the line; the adapter adds the output line number and the op it was waiting for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pubsub_spec.reference.sim.system import FEATURES as SYSTEM_FEATURES

PROTOCOL_VERSION = 1

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


Reply = InitOk | Deliver | Ack | Error | EndOk

_FIELDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    # type: (required fields, optional fields); unknown fields are allowed and ignored, so
    # that implementations may add their own (e.g. a delivering node, timings).
    "init_ok": (frozenset({"features"}), frozenset({"name"})),
    "deliver": (frozenset({"event", "sub"}), frozenset()),
    "ack": (frozenset({"seq"}), frozenset()),
    "error": (frozenset({"seq", "code", "definite"}), frozenset({"text"})),
    "end_ok": (frozenset(), frozenset()),
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
    if kind == "init_ok":
        feats = obj["features"]
        if not isinstance(feats, list) or not all(isinstance(f, str) for f in feats):
            raise ProtocolError("init_ok: field 'features' must be a list of strings")
        name = obj.get("name", "")
        return InitOk(tuple(feats), name if isinstance(name, str) else "")
    code = obj["code"]
    if isinstance(code, bool) or not isinstance(code, str | int):
        raise ProtocolError(f"error: field 'code' must be a string or an integer, got {code!r}")
    definite = obj["definite"]
    if not isinstance(definite, bool):
        raise ProtocolError(f"error: field 'definite' must be true or false, got {definite!r}")
    text = obj.get("text", "")
    return Error(_seq(obj), str(code), definite, text if isinstance(text, str) else str(text))


def reply_to_json(reply: Reply) -> dict[str, Any]:
    """The wire form of a reply (for implementations written in Python, and for tests)."""
    if isinstance(reply, InitOk):
        out: dict[str, Any] = {"type": "init_ok", "features": list(reply.features)}
        if reply.name:
            out["name"] = reply.name
        return out
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
