"""The JSON Schema of the step vectors of tam and tam-basic (conformance/steps/tam.py,
docs/steps.md): keys 40 lower-case hex digits, names 1 to 256 characters, numbers finite,
integers of magnitude at most 2^53, lists at most 10,000 items."""

from __future__ import annotations

from typing import Any

from pubsub_spec.conformance.steps.kyra_schema import EVENT, NAME, NAMES, SCHEMA, SEQ, STATUS, SUB

JSON = Any

KEY = {"type": "string", "pattern": "^[0-9a-f]{40}$"}
TIME = {"type": "number", "minimum": 0, "maximum": 2**53}


def _node(system: str) -> JSON:
    rec = {"type": "object", "additionalProperties": False,
           "required": ["sub", "seq", "keys", "active"],
           "properties": {"sub": SUB, "seq": SEQ, "active": {"type": "boolean"},
                          "keys": {"type": "array", "items": KEY, "maxItems": 10000}}}  # fmt: skip
    props: dict[str, JSON] = {"name": NAME, "subs": {"type": "array", "items": rec}}
    if system == "tam":
        props["registered"] = {"type": "object", "propertyNames": KEY,
                               "additionalProperties": NAMES}  # fmt: skip
        props["groups"] = {"type": "array", "maxItems": 10000, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["key", "parent", "children", "member"],
            "properties": {"key": KEY, "parent": {"oneOf": [{"type": "null"}, NAME]},
                           "children": NAMES, "member": {"type": "boolean"}}}}  # fmt: skip
        props["seen"] = {"type": "object", "propertyNames": NAME, "additionalProperties": TIME}
    else:
        props["store"] = {"type": "object", "propertyNames": KEY,
                          "additionalProperties": {"type": "array", "items": SUB}}  # fmt: skip
        pair = {"type": "array", "prefixItems": [NAME, NAME], "minItems": 2, "maxItems": 2}
        props["seen"] = {"type": "array", "items": pair}
    return {"type": "object", "additionalProperties": False, "required": sorted(props),
            "properties": props}  # fmt: skip


def _message(kind: str) -> JSON:
    props: dict[str, JSON] = {"type": {"const": kind}}
    if kind != "TamNotify":
        props["key"] = KEY
    if kind == "ScribeJoin":
        props.update(child=NAME, origin=NAME, repair={"type": "boolean"})
    elif kind == "ScribeLeave":
        props["child"] = NAME
    elif kind == "TamSubscribe":
        props.update(sub=SUB, seq=SEQ)
    elif kind == "TamUnsubscribe":
        props["sub"] = NAME
    else:
        props["event"] = EVENT
        if kind == "TamNotify":
            props["subs"] = {**NAMES, "minItems": 1}
    return {"type": "object", "additionalProperties": False, "required": sorted(props),
            "properties": props}  # fmt: skip


def schema(system: str) -> dict[str, JSON]:
    from pubsub_spec.conformance.steps.tam import MESSAGES

    ops = [
        {"type": "object", "required": ["op", "sub", "seq"],
         "properties": {"op": {"const": "subscribe"}, "sub": SUB, "seq": SEQ}},
        {"type": "object", "required": ["op", "sub"],
         "properties": {"op": {"const": "unsubscribe"}, "sub": NAME}},
        {"type": "object", "required": ["op", "event"],
         "properties": {"op": {"const": "publish"}, "event": EVENT}},
    ]  # fmt: skip
    context = {"type": "object", "additionalProperties": False,
               "required": ["schemas", "matching", "config", "routes", "now", "status"],
               "properties": {"schemas": {"type": "array", "items": SCHEMA, "minItems": 1},
                              "matching": {"const": "strict"},
                              "config": {"type": "object"},
                              "routes": {"type": "object", "propertyNames": KEY,
                                         "additionalProperties": NAME},
                              "now": TIME,
                              "status": {"type": "array", "items": STATUS}}}  # fmt: skip
    node = _node(system)
    send = {"type": "object", "required": ["kind", "name", "node", "to", "fields"],
            "properties": {"kind": {"const": "send"}, "name": {"enum": list(MESSAGES[system])},
                           "node": NAME, "to": NAME, "event": NAME, "sub": NAME,
                           "fields": {"type": "object",
                                      "required": ["route", "message"]}}}  # fmt: skip
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"pubsub-spec/steps/{system}.schema.json",
        "title": f"Step vectors of {system} (Tam, Azimi, Jacobsen, DBISP2P 2003)",
        "$defs": {
            "pre": {"type": "object", "additionalProperties": False,
                    "required": ["node", "context"],
                    "properties": {"node": node, "context": context}},
            "input": {"oneOf": [*(_message(k) for k in MESSAGES[system]), *ops]},
            "post": {"type": "object", "additionalProperties": False,
                     "required": ["node", "delivered"],
                     "properties": {"node": node, "delivered": {"type": "array", "items": {
                         "type": "array", "prefixItems": [NAME, NAME],
                         "minItems": 2, "maxItems": 2}}}},
            "sends": {"type": "array", "items": send},
        },
    }  # fmt: skip
