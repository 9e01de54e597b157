"""The JSON Schema of the thesis system's step documents (conformance/steps/thesis.py)."""

from __future__ import annotations

from typing import Any

_NUM = {"type": "number", "minimum": -(2**53), "maximum": 2**53}
_NAME = {"type": "string", "minLength": 1, "maxLength": 256}
_BITS = {"type": "string", "pattern": "^[01]{0,64}$"}
_TREE = {"type": "string", "pattern": "^[^/]+/[^/]+$", "maxLength": 256}
_INT = {"type": "integer", "minimum": 0, "maximum": 2**53}


def _obj(props: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": sorted(k for k in props if k not in optional),
        "additionalProperties": False,
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


_DEFS: dict[str, Any] = {
    "subscription": _obj({
        "id": _NAME, "subscriber": _NAME, "schema": _NAME,
        "predicates": {"type": "array", "items": {
            "type": "array", "prefixItems": [_NAME, _NUM, _NUM], "minItems": 3, "maxItems": 3}},
    }),
    "event": _obj({
        "id": _NAME, "publisher": _NAME, "schema": _NAME, "seq": _INT,
        "values": {"type": "array", "items": {
            "type": "array", "prefixItems": [_NAME, _NUM], "minItems": 2, "maxItems": 2}},
    }),
    "point": _obj({
        "sub": _ref("subscription"), "base": _NAME, "path": _BITS, "seq": _INT,
        "segment": _obj({"index": _INT, "lo": _NUM, "hi": _NUM, "closed": {"type": "boolean"}}),
    }),
    "message": {"oneOf": [
        _obj({"type": {"const": "ProbeSub"}, "point": _ref("point"), "target": _BITS,
              "remove": {"type": "boolean"}, "found": {"type": "boolean"}}),
        _obj({"type": {"const": "InsertSub"}, "point": _ref("point"), "target": _BITS}),
        _obj({"type": {"const": "LeafUpdate"}, "tree": _TREE, "split": _BITS,
              "target": _BITS}),
        _obj({"type": {"const": "TransferSub"}, "tree": _TREE, "target": _BITS,
              "points": {"type": "array", "items": _ref("point")},
              "seen": {"type": "array", "items": _NAME}, "created": {"type": "boolean"}}),
        _obj({"type": {"const": "ProbePub"}, "event": _ref("event"), "tree": _TREE,
              "target": _BITS}),
        _obj({"type": {"const": "ProbePubMulticast"}, "event": _ref("event"),
              "dests": {"type": "array", "items": {
                  "type": "array", "prefixItems": [_TREE, _BITS], "minItems": 2,
                  "maxItems": 2}}}),
        _obj({"type": {"const": "EventDelivery"}, "event": _ref("event"),
              "targets": {"type": "array", "items": {
                  "type": "array", "prefixItems": [_NAME, {"type": "array", "items": _NAME}],
                  "minItems": 2, "maxItems": 2}},
              "origin": {"type": "string"}, "tree_id": {"type": "string"}}),
    ]},
    "tree_node": _obj({
        "tree": _TREE, "bits": _BITS,
        "points": {"type": "array", "items": _ref("point")},
        "lnrt": {"oneOf": [{"type": "null"}, {"type": "array", "items": _BITS, "minItems": 2}]},
        "seen": {"type": "array", "items": _NAME},
        "splitting": {"enum": [0, 1, 2]},
        "held": {"type": "array", "items": _ref("message")},
    }),
    "node": _obj({
        "name": _NAME, "capacity": _INT,
        "nodes": {"type": "array", "items": _ref("tree_node")},
        "subscriptions": {"type": "array", "items": _ref("subscription")},
    }),
    "context": _obj({
        "schemas": {"type": "array", "minItems": 1, "items": _obj({
            "name": _NAME, "attributes": {"type": "array", "minItems": 1, "items": _obj({
                "name": _NAME, "type": {"enum": ["int", "float"]}, "min": _NUM, "max": _NUM,
            })}})},
        "matching": {"enum": ["strict", "lenient"]},
        "config": {"type": "object", "description": "the `thesis` section (FORMAT.md)"},
        "alive": {"oneOf": [{"type": "null"}, {"type": "array", "items": _NAME}]},
        "overlay": _obj({
            "homes": {"type": "object", "additionalProperties": _NAME},
            "first_hops": {"type": "object", "additionalProperties": _NAME},
        }),
    }),
    "send": {
        "type": "object",
        "required": ["kind", "name", "node", "to", "fields"],
        "properties": {
            "kind": {"const": "send"}, "name": _NAME, "node": _NAME, "to": _NAME,
            "event": _NAME, "sub": _NAME,
            "fields": {"type": "object", "required": ["route", "message"], "properties": {
                "route": {"enum": ["key", "direct"]}, "message": _ref("message")}},
        },
    },
}  # fmt: skip

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "pubsub-spec/steps/thesis.schema.json",
    "title": "Step vectors of the thesis system (thesis §3.2-§3.4, §4.2.1)",
    "$defs": {
        **_DEFS,
        "pre": _obj({"node": _ref("node"), "context": _ref("context")}),
        "input": _ref("message"),
        "post": _obj({"node": _ref("node"), "delivered": {"type": "array", "items": {
            "type": "array", "prefixItems": [_NAME, _NAME], "minItems": 2, "maxItems": 2}}}),
        "sends": {"type": "array", "items": _ref("send")},
    },
}  # fmt: skip
