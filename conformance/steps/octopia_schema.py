"""The JSON Schema of the step vectors of octopia-snr, octopia-idr and tid
(conformance/steps/octopia.py, docs/steps.md): brokers `B(x,i)`, names 1 to 256 characters,
numbers finite (a link's rank may be "inf", A2), integers of magnitude at most 2^53, cluster
indexes in [0, 2^31), lists at most 10,000 items."""

from __future__ import annotations

from typing import Any

from pubsub_spec.conformance.steps.kyra_schema import (
    EVENT,
    GROUP,
    NAME,
    NUMBER,
    SEQ,
    STATUS,
    SUB,
)

JSON = Any

BROKER = {"type": "string", "pattern": "^B\\(.+,[0-9]+\\)$", "maxLength": 256}
OPT_BROKER = {"oneOf": [{"type": "null"}, BROKER]}
BROKERS = {"type": "array", "items": BROKER, "maxItems": 10000}
CIV = {"type": "array", "items": GROUP, "maxItems": 10000}
ADV = {**SUB, "required": ["id", "publisher", "schema", "predicates"],
       "properties": {"id": NAME, "publisher": NAME, "schema": NAME,
                      "predicates": SUB["properties"]["predicates"]}}  # type: ignore[index]  # fmt: skip
REAL = {"oneOf": [NUMBER, {"const": "inf"}]}
TID = {"oneOf": [{"type": "null"}, NAME]}


def _node(system: str) -> JSON:
    if system == "tid":
        srt = {"type": "object", "additionalProperties": False, "required": ["adv", "last_hop"],
               "properties": {"adv": ADV, "last_hop": OPT_BROKER}}  # fmt: skip
        prt_props = {"sub": SUB, "tid": NAME, "last_hop": OPT_BROKER}
    else:
        srt = {"type": "object", "additionalProperties": False,
               "required": ["adv", "host_ci", "last_hop", "stc", "scb"],
               "properties": {"adv": ADV, "host_ci": GROUP, "last_hop": OPT_BROKER, "stc": CIV,
                              "scb": {"type": "boolean"}}}  # fmt: skip
        prt_props = {"sub": SUB, "last_hop": OPT_BROKER}
    prt = {"type": "object", "additionalProperties": False, "required": sorted(prt_props),
           "properties": prt_props}  # fmt: skip
    props: dict[str, JSON] = {
        "name": BROKER,
        "srt": {"type": "array", "items": srt, "maxItems": 10000},
        "prt": {"type": "array", "items": prt, "maxItems": 10000},
        "received": {"type": "object", "additionalProperties": SEQ},
    }
    if system == "tid":
        pair = {"type": "array", "prefixItems": [NAME, NAME], "minItems": 2, "maxItems": 2}
        props["local"] = {"type": "array", "items": SUB}
        props["handed"] = {"type": "array", "items": pair}
    return {"type": "object", "additionalProperties": False, "required": sorted(props),
            "properties": props}  # fmt: skip


def _message(kind: str, system: str) -> JSON:
    props: dict[str, JSON] = {"type": {"const": kind}, "from": BROKER}
    if kind != "CIB_SET":
        props["tid"] = NAME if system == "tid" and kind != "Advertisement" else TID
    if kind == "Advertisement":
        props.update(adv=ADV, host=BROKER)
    elif kind == "Unadvertisement":
        props["adv"] = NAME
    elif kind == "Subscription":
        props["sub"] = SUB
    elif kind == "Unsubscription":
        props["sub"] = NAME
    elif kind == "CIB_SET":
        props.update(adv=NAME, cluster=GROUP, sub={"oneOf": [{"type": "null"}, SUB]})
    else:
        props.update(event=EVENT, civ=CIV, depth=SEQ)
    return {"type": "object", "additionalProperties": False, "required": sorted(props),
            "properties": props}  # fmt: skip


def schema(system: str) -> dict[str, JSON]:
    from pubsub_spec.conformance.steps.octopia import MESSAGES

    ops = [
        {"type": "object", "required": ["op", "adv"],
         "properties": {"op": {"const": "advertise"}, "adv": ADV}},
        {"type": "object", "required": ["op", "adv"],
         "properties": {"op": {"const": "unadvertise"}, "adv": NAME}},
        {"type": "object", "required": ["op", "sub", "seq"],
         "properties": {"op": {"const": "subscribe"}, "sub": SUB, "seq": SEQ}},
        {"type": "object", "required": ["op", "sub"],
         "properties": {"op": {"const": "unsubscribe"}, "sub": NAME}},
        {"type": "object", "required": ["op", "event"],
         "properties": {"op": {"const": "publish"}, "event": EVENT}},
    ]  # fmt: skip
    link = {"type": "object", "additionalProperties": False, "required": ["overloaded", "rank"],
            "properties": {"overloaded": {"type": "boolean"},
                           "rank": {"type": "array", "prefixItems": [REAL, REAL],
                                    "minItems": 2, "maxItems": 2}}}  # fmt: skip
    ctx: dict[str, JSON] = {
        "matching": {"enum": ["strict", "lenient"]},
        "m": GROUP,
        "primary": BROKERS,
        "secondary": {"type": "array", "items": {"type": "array", "prefixItems": [GROUP, BROKER],
                                                 "minItems": 2, "maxItems": 2}},
        "links": {"type": "object", "additionalProperties": link},
        "adverts": {"type": "array", "items": ADV},
        "status": {"type": "array", "items": STATUS},
    }  # fmt: skip
    if system == "tid":
        ctx["tid_dynamic"] = {"type": "boolean"}
        ctx["event_tid"] = {"type": "object", "additionalProperties": NAME}
    node = _node(system)
    send = {"type": "object", "required": ["kind", "name", "node", "to", "fields"],
            "properties": {"kind": {"const": "send"}, "name": {"enum": list(MESSAGES[system])},
                           "node": BROKER, "to": BROKER,
                           "fields": {"type": "object",
                                      "required": ["route", "message"]}}}  # fmt: skip
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"pubsub-spec/steps/{system}.schema.json",
        "title": f"Step vectors of {system} (Shafique, arXiv:1604.06853)",
        "$defs": {
            "pre": {"type": "object", "additionalProperties": False,
                    "required": ["node", "context"],
                    "properties": {"node": node,
                                   "context": {"type": "object", "additionalProperties": False,
                                               "required": sorted(ctx), "properties": ctx}}},
            "input": {"oneOf": [*(_message(k, system) for k in MESSAGES[system]), *ops]},
            "post": {"type": "object", "additionalProperties": False,
                     "required": ["node", "delivered"],
                     "properties": {"node": node, "delivered": {"type": "array", "items": {
                         "type": "array", "prefixItems": [NAME, NAME],
                         "minItems": 2, "maxItems": 2}}}},
            "sends": {"type": "array", "items": send},
        },
    }  # fmt: skip
