"""The JSON Schema of the step vectors of kyra, siena and mcgroups (conformance/steps/kyra.py,
docs/steps.md): numbers finite, integers of magnitude at most 2^53, names 1 to 256
characters, lists at most 10,000 items, group numbers in [0, 2^31)."""

from __future__ import annotations

from typing import Any

JSON = Any

NAME = {"type": "string", "minLength": 1, "maxLength": 256}
NAMES = {"type": "array", "items": NAME, "maxItems": 10000}
NUMBER = {"type": "number", "minimum": -(2**53), "maximum": 2**53}
SEQ = {"type": "integer", "minimum": 0, "maximum": 2**53}
STATUS = {"type": "array", "minItems": 4, "maxItems": 4,
          "prefixItems": [NAME, NAME, SEQ, {"type": "boolean"}]}  # fmt: skip
OPT_NAMES = {"oneOf": [{"type": "null"}, NAMES]}
GROUP = {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}
ZONE = {"type": "array", "prefixItems": [NUMBER, NUMBER, {"type": "boolean"}],
        "minItems": 3, "maxItems": 3}  # fmt: skip
BOX = {"type": "array", "items": ZONE, "minItems": 1, "maxItems": 64}
SUB = {"type": "object", "additionalProperties": False,
       "required": ["id", "subscriber", "schema", "predicates"],
       "properties": {"id": NAME, "subscriber": NAME, "schema": NAME,
                      "predicates": {"type": "array", "maxItems": 10000, "items": {
                          "type": "array", "prefixItems": [NAME, NUMBER, NUMBER],
                          "minItems": 3, "maxItems": 3}}}}  # fmt: skip
SUBS = {"type": "array", "items": SUB, "maxItems": 10000}
EVENT = {"type": "object", "additionalProperties": False,
         "required": ["id", "publisher", "schema", "values", "seq"],
         "properties": {"id": NAME, "publisher": NAME, "schema": NAME,
                        "values": {"type": "array", "maxItems": 10000, "items": {
                            "type": "array", "prefixItems": [NAME, NUMBER],
                            "minItems": 2, "maxItems": 2}}, "seq": SEQ}}  # fmt: skip
EXTENT = {"type": "array", "maxItems": 64, "items": {
    "type": "array", "prefixItems": [NUMBER, NUMBER], "minItems": 2, "maxItems": 2}}  # fmt: skip
SCHEMA = {"type": "object", "required": ["name", "attributes"],
          "properties": {"name": NAME, "attributes": {"type": "array", "items": {
              "type": "object", "required": ["name", "type", "min", "max"],
              "properties": {"name": NAME, "type": {"enum": ["int", "float"]},
                             "min": NUMBER, "max": NUMBER}}}}}  # fmt: skip
MATCHING = {"enum": ["strict", "lenient"]}


def _entry(origin: str) -> JSON:
    props: dict[str, JSON] = {"sub": SUB, origin: NAME, "extent": EXTENT}
    required = ["sub", origin, "extent"]
    if origin == "proxy":
        props["zones"] = {"type": "array", "items": BOX, "maxItems": 64}
        required.append("zones")
    return {"type": "object", "additionalProperties": False, "required": required,
            "properties": props}  # fmt: skip


def _table(origin: str) -> JSON:
    return {"type": "object", "propertyNames": NAME,
            "additionalProperties": {"type": "array", "items": _entry(origin),
                                     "maxItems": 10000}}  # fmt: skip


def _node(system: str) -> JSON:
    props: dict[str, JSON] = {"name": NAME, "subs": SUBS}
    if system == "kyra":
        props["proxy"] = SUBS
        props["tables"] = {"type": "object", "propertyNames": NAME,
                           "additionalProperties": _table("proxy")}  # fmt: skip
    elif system == "siena":
        props["table"] = _table("origin")
    else:
        props["groups"] = {"type": "array", "maxItems": 10000, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["schema", "group", "members", "neighbours"],
            "properties": {"schema": NAME, "group": GROUP, "members": NAMES,
                           "neighbours": {"oneOf": [{"type": "null"}, NAMES]}}}}  # fmt: skip
    return {"type": "object", "additionalProperties": False, "required": sorted(props),
            "properties": props}  # fmt: skip


def _context(system: str) -> JSON:
    props: dict[str, JSON] = {"schemas": {"type": "array", "items": SCHEMA, "minItems": 1},
                              "matching": MATCHING,
                              "status": {"type": "array", "items": STATUS}}  # fmt: skip
    if system == "kyra":
        props["clique"] = NAMES
        props["layouts"] = {"type": "object", "additionalProperties": {
            "type": "object", "required": ["attrs", "zones", "trees"],
            "properties": {
                "attrs": NAMES,
                "zones": {"type": "object", "additionalProperties": BOX},
                "trees": {"type": "array", "items": {
                    "type": "object", "required": ["name", "zone", "neighbours"],
                    "properties": {"name": NAME, "zone": BOX,
                                   "neighbours": OPT_NAMES}}}}}}  # fmt: skip
    elif system == "siena":
        props["partition"] = {"type": "object", "additionalProperties": NAME}
        props["neighbours"] = NAMES
    else:
        props["maps"] = {"type": "object", "additionalProperties": {
            "type": "object", "required": ["attr", "cells", "groups"],
            "properties": {"attr": NAME, "cells": BOX,
                           "groups": {"type": "array", "items": GROUP}}}}  # fmt: skip
        opt_name = {"oneOf": [{"type": "null"}, NAME]}
        props["closest"] = {"type": "object", "additionalProperties": opt_name}
    return {"type": "object", "required": sorted(props), "properties": props}


def _message(kind: str, system: str) -> JSON:
    props: dict[str, JSON] = {"type": {"const": kind}, "from": NAME}
    if kind in ("SubMove", "UnsubMove"):
        props["sub"] = SUB
    elif kind in ("SubPropagate", "UnsubPropagate"):
        origin = "proxy" if system == "kyra" else "origin"
        props.update(_entry(origin)["properties"])
        if system == "kyra":
            props["tree"] = NAME
    elif kind == "GroupJoin":
        props.update(schema=NAME, group=GROUP, server=NAME, sub=NAME)
    else:
        props["event"] = EVENT
        if kind == "EventRoute" and system == "kyra":
            props["tree"] = NAME
        if kind == "Notify":
            props["subs"] = {**NAMES, "minItems": 1}
        if kind in ("EventToGroup", "EventMulticast"):
            props["group"] = GROUP
    return {"type": "object", "additionalProperties": False, "required": sorted(props),
            "properties": props}  # fmt: skip


def schema(system: str) -> dict[str, JSON]:
    from pubsub_spec.conformance.steps.kyra import MESSAGES

    ops = [
        {"type": "object", "required": ["op", "sub", "seq"],
         "properties": {"op": {"const": "subscribe"}, "sub": SUB, "seq": SEQ}},
        {"type": "object", "required": ["op", "sub"],
         "properties": {"op": {"const": "unsubscribe"}, "sub": NAME}},
        {"type": "object", "required": ["op", "event"],
         "properties": {"op": {"const": "publish"}, "event": EVENT}},
    ]  # fmt: skip
    node = _node(system)
    send = {"type": "object", "required": ["kind", "name", "node", "to", "fields"],
            "properties": {"kind": {"const": "send"}, "name": {"enum": list(MESSAGES[system])},
                           "node": NAME, "to": NAME, "event": NAME, "sub": NAME,
                           "fields": {"type": "object", "required": ["message"]}}}  # fmt: skip
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"pubsub-spec/steps/{system}.schema.json",
        "title": f"Step vectors of {system} (Cao & Singh, INFOCOM 2004)",
        "$defs": {
            "pre": {"type": "object", "additionalProperties": False,
                    "required": ["node", "context"],
                    "properties": {"node": node, "context": _context(system)}},
            "input": {"oneOf": [*(_message(k, system) for k in MESSAGES[system]), *ops]},
            "post": {"type": "object", "additionalProperties": False,
                     "required": ["node", "delivered"],
                     "properties": {"node": node, "delivered": {"type": "array", "items": {
                         "type": "array", "prefixItems": [NAME, NAME],
                         "minItems": 2, "maxItems": 2}}}},
            "sends": {"type": "array", "items": send},
        },
    }  # fmt: skip
