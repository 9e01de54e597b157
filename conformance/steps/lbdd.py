"""Step vectors of LBDD (Li Kai, Wang Yun, Yin Yi, Yuan Feifei, "Load-balancing data
distribution in publish/subscribe mode", Journal of Southeast University, 2014): one node of a
dissemination tree, run through the functions of reference/lbdd/algorithms.py.

A node's state is its name, its view Pi (the peers it knows alive, itself excluded; LBDD §3.2)
and its buckets as Algorithm 1 last built them (`source`, its own bucket `self`, its `rank`
and the `size` of its bucket, and the members of each higher bucket, ordered by decision D-L1),
or null. The handlers:

- `EventDelivery` (LBDD §3.1-§3.3, Algorithms 1-2): a copy of an event's tree (`origin`,
  `members` as conformance/OBSERVATIONS.md "lbdd" defines them) reaches the node, or the origin
  starts it; the node sends the copy on to its slice of the next non-empty bucket, computed
  from its own view restricted to the tree's members (as a topic's subscribers, LBDD §3.1).
  The state is unchanged. A copy for a node that is neither the origin nor a member, or with
  members not sorted, repeated or including the origin, is refused (`invalid`);
- `buckets` (Algorithm 1, LBDD §3.2): the node builds its buckets for a source over its view;
- `path_update` (Algorithm 3, LBDD §3.4, decision D-L6): a failure detected or a join learned
  changes the view, and the buckets, if built, are rebuilt from the whole new view. A node
  does not detect its own failure (refused).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from pubsub_spec.conformance.steps import lbdd_model
from pubsub_spec.conformance.steps.base import (
    JSON,
    Case,
    Handler,
    Outcome,
    StepInputError,
    StepSystem,
    check_name,
    field,
)
from pubsub_spec.reference.lbdd.algorithms import (
    LocalBuckets,
    bucket_construction,
    digest,
    path_update,
    select_targets,
)

# Two addresses with the same digest (the highest 32 bits of MD5, LBDD §3.2): decision D-L4.
TIE = ("10.0.81.124", "10.0.170.82")


def enc_buckets(source: str, b: LocalBuckets) -> JSON:
    return {
        "source": source,
        "self": b.self_no,
        "rank": b.rank,
        "size": b.size,
        "higher": [[m, list(ms)] for m, ms in sorted(b.higher.items())],
    }


def _names(v: JSON, where: str) -> list[str]:
    if not isinstance(v, list):
        raise StepInputError(f"{where}: a list of names")
    return [check_name(x, f"{where}[{i}]") for i, x in enumerate(v)]


def _node(v: JSON) -> tuple[str, list[str], JSON]:
    node = field(v, "node", "pre")
    name = check_name(field(node, "name", "pre.node"), "pre.node.name")
    view = _names(field(node, "view", "pre.node"), "pre.node.view")
    if view != sorted(set(view)) or name in view:
        raise StepInputError("pre.node.view: sorted, unique, without the node itself")
    buckets = field(node, "buckets", "pre.node")
    if buckets is not None:
        check_name(field(buckets, "source", "pre.node.buckets"), "pre.node.buckets.source")
    return name, view, buckets


def _state(name: str, view: list[str], buckets: JSON) -> JSON:
    return {"node": {"name": name, "view": sorted(view), "buckets": buckets}}


def _kind(step_input: JSON) -> JSON:
    if not isinstance(step_input, dict):
        return None
    return step_input.get("type", step_input.get("op"))


# Algorithm 2 (the targets from the buckets) and Algorithm 3 (the view update): replaceable
# by a variant (a mutant) of the rule.
TargetsRule = Callable[[LocalBuckets], tuple[str, ...]]
UpdateRule = Callable[[set[str], str | None, str | None], set[str]]


def _path_update(view: set[str], failed: str | None, joined: str | None) -> set[str]:
    return path_update(view, failed=failed, joined=joined)


def apply_step(
    pre: JSON,
    step_input: JSON,
    select: TargetsRule | None = None,
    update: UpdateRule | None = None,
) -> Outcome:
    """One step of the node (module doc); `select` and `update` replace Algorithms 2 and 3."""
    name, view, buckets = _node(pre)
    kind = _kind(step_input)
    if kind == "EventDelivery":
        origin = check_name(field(step_input, "origin", "input"), "input.origin")
        members = _names(field(step_input, "members", "input"), "input.members")
        check_name(field(step_input, "event", "input"), "input.event")
        if members != sorted(set(members)) or origin in members:
            # conformance/OBSERVATIONS.md, lbdd/fields
            return Outcome(invalid="members must be sorted, unique and without the origin")
        if name != origin and name not in members:
            return Outcome(invalid="a copy for a node that is not a member of the tree (LBDD §3.1)")
        known = set(view)
        local = bucket_construction(name, origin, [m for m in members if m in known])  # Alg. 1
        sends = []
        for to in (select or select_targets)(
            local
        ):  # Algorithm 2: a slice of the next non-empty bucket
            fields: dict[str, Any] = {
                "origin": origin, "members": members, "tree_id": step_input.get("tree_id", ""),
                "strategy": "lbdd", "route": "direct", "message": step_input,
            }  # fmt: skip
            sends.append({"kind": "send", "name": "EventDelivery", "node": name, "to": to,
                          "event": step_input["event"], "fields": fields})  # fmt: skip
        return Outcome({**_state(name, view, buckets), "delivered": []}, sends)
    if kind == "buckets":
        source = check_name(field(step_input, "source", "input"), "input.source")
        built = enc_buckets(source, bucket_construction(name, source, view))
        return Outcome({**_state(name, view, built), "delivered": []}, [])
    if kind == "path_update":
        failed, joined = step_input.get("failed"), step_input.get("joined")
        if failed is None and joined is None:
            raise StepInputError("input: path_update names `failed` or `joined`")
        if failed == name:
            return Outcome(invalid="a node does not detect its own failure (LBDD §3.4)")
        new = (update or _path_update)(set(view), failed, joined)  # Algorithm 3
        new.discard(name)
        if buckets is not None:  # D-L6: recompute from the whole updated view
            source = buckets["source"]
            buckets = enc_buckets(source, bucket_construction(name, source, new))
        return Outcome({**_state(name, sorted(new), buckets), "delivered": []}, [])
    raise StepInputError(f"input: not an LBDD handler: {kind!r}")


HANDLERS = (
    Handler("EventDelivery", "LBDD §3.1-§3.3, Algorithms 1-2; §3.5.1 Theorem 1",
            "a copy of an event's tree sent on to the node's slice of the next non-empty "
            "higher bucket (decisions D-L1, D-L2, D-L3, D-L4), from its view restricted to the "
            "tree's members"),
    Handler("buckets", "LBDD §3.2, Algorithm 1",
            "the node's own bucket and rank and the higher buckets for a source, from its view"),
    Handler("path_update", "LBDD §3.4, Algorithm 3 (decision D-L6)",
            "a failure detected or a join learned: the view changes and the buckets are "
            "rebuilt from the whole new view"),
)  # fmt: skip


def _peers(rng: random.Random, n: int) -> list[str]:
    return [f"10.0.{rng.randrange(256)}.{rng.randrange(256)}" for _ in range(n)]


class LbddSteps(StepSystem):
    """LBDD's steps; `select` and `update` replace Algorithms 2 and 3 (a mutant)."""

    name = "lbdd"
    paper = (
        'Li Kai, Wang Yun, Yin Yi, Yuan Feifei, "Load-balancing data distribution in '
        'publish/subscribe mode", Journal of Southeast University, 2014'
    )
    handlers = HANDLERS
    at_least = 16
    coverage = (
        ("reference/lbdd/algorithms.py", (
            "digest", "distance", "bucket_no", "bucket_of_distance", "_order",
            "bucket_construction", "slice_bounds", "select_targets", "targets", "path_update",
        )),
    )  # fmt: skip

    def __init__(self, select: TargetsRule | None = None, update: UpdateRule | None = None) -> None:
        self.select = select
        self.update = update

    def prepare(self) -> None:
        digest.cache_clear()

    def handler_of(self, step_input: JSON) -> str:
        kind = _kind(step_input)
        if not isinstance(kind, str):
            raise StepInputError("input: `type` (a message) or `op`")
        return kind

    def apply(self, pre: JSON, step_input: JSON) -> Outcome:
        return apply_step(pre, step_input, self.select, self.update)

    def candidates(self) -> Iterator[Case]:
        rng = random.Random("steps:lbdd")  # every choice from this generator
        for i in range(40):
            everyone = sorted(set(_peers(rng, rng.randint(2, 14))))
            if i % 10 == 0:
                everyone = sorted({*everyone, *TIE})
            origin = rng.choice(everyone)
            members = sorted(m for m in everyone if m != origin and rng.random() < 0.8)
            me = rng.choice([origin, *members]) if members else origin
            view = sorted(p for p in everyone if p != me and rng.random() < 0.9)
            pre = _state(me, view, None)
            copy = {"type": "EventDelivery", "event": f"e{i}", "origin": origin,
                    "members": members, "tree_id": ""}  # fmt: skip
            yield Case("EventDelivery", f"tree-{i:03d}", pre, copy)
            source = rng.choice(everyone)
            yield Case("buckets", f"view-{i:03d}", pre, {"op": "buckets", "source": source})
            built = apply_step(pre, {"op": "buckets", "source": source}).post["node"]["buckets"]
            gone = rng.choice(view) if view else me
            upd = {"op": "path_update", "failed": gone}
            yield Case("path_update", f"fail-{i:03d}", _state(me, view, built), upd)
            yield Case("path_update", f"join-{i:03d}", _state(me, view, built if i % 2 else None),
                       {"op": "path_update", "joined": f"10.1.0.{i}"})  # fmt: skip
        outsider = {"type": "EventDelivery", "event": "e-out", "origin": "10.0.0.1",
                    "members": ["10.0.0.2"], "tree_id": ""}  # fmt: skip
        yield Case("EventDelivery", "not-a-member", _state("10.0.0.3", ["10.0.0.1"], None),
                   outsider)  # fmt: skip
        unsorted = {**outsider, "members": ["10.0.0.3", "10.0.0.2"]}
        yield Case("EventDelivery", "members-unsorted", _state("10.0.0.3", [], None), unsorted)
        yield Case("path_update", "own-failure", _state("10.0.0.3", ["10.0.0.1"], None),
                   {"op": "path_update", "failed": "10.0.0.3"})  # fmt: skip
        if lbdd_model.available():  # every distinct (state, Forward(n)) of spec/lbdd/MCLBDD.tla
            yield from lbdd_model.cases(apply_step)

    def keep(self, case: Case) -> bool:
        return case.name.startswith("model-")

    def schema(self) -> dict[str, JSON]:
        name = {"type": "string", "minLength": 1, "maxLength": 256}
        names = {"type": "array", "items": name, "maxItems": 10000}
        count = {"type": "integer", "minimum": 0, "maximum": 2**53}
        buckets = {"oneOf": [{"type": "null"}, {
            "type": "object", "additionalProperties": False,
            "required": ["source", "self", "rank", "size", "higher"],
            "properties": {"source": name, "self": count, "rank": count, "size": count,
                           "higher": {"type": "array", "items": {
                               "type": "array", "prefixItems": [count, names],
                               "minItems": 2, "maxItems": 2}}}}]}  # fmt: skip
        node = {"type": "object", "additionalProperties": False,
                "required": ["name", "view", "buckets"],
                "properties": {"name": name, "view": names, "buckets": buckets}}  # fmt: skip
        delivery = {"type": "object", "required": ["type", "event", "origin", "members"],
                    "properties": {"type": {"const": "EventDelivery"}, "event": name,
                                   "origin": name, "members": names,
                                   "tree_id": {"type": "string"}}}  # fmt: skip
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "pubsub-spec/steps/lbdd.schema.json",
            "title": "Step vectors of LBDD (LBDD §3.2-§3.4)",
            "$defs": {
                "pre": {"type": "object", "required": ["node"], "properties": {"node": node}},
                "input": {
                    "oneOf": [
                        delivery,
                        {
                            "type": "object",
                            "required": ["op", "source"],
                            "properties": {"op": {"const": "buckets"}, "source": name},
                        },
                        {
                            "type": "object",
                            "required": ["op"],
                            "properties": {
                                "op": {"const": "path_update"},
                                "failed": name,
                                "joined": name,
                            },
                        },
                    ]
                },
                "post": {
                    "type": "object",
                    "required": ["node", "delivered"],
                    "properties": {"node": node, "delivered": {"type": "array"}},
                },
                "sends": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["kind", "name", "node", "to", "event", "fields"],
                        "properties": {
                            "kind": {"const": "send"},
                            "name": {"const": "EventDelivery"},
                            "node": name,
                            "to": name,
                            "event": name,
                        },
                    },
                },
            },
        }

    def roundtrip(self, document: str, value: JSON) -> JSON:
        if document == "input":
            self.handler_of(value)
            return dict(value)
        name, view, buckets = _node(value)
        out = _state(name, view, buckets)
        if document == "post":
            out["delivered"] = value["delivered"]
        return out


SYSTEM = LbddSteps()
