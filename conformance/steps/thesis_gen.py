"""Candidate step vectors of the thesis system, taken from running the reference.

Small traces of the conformance generators run on the reference system with settings that
make every rule fire (capacities of one or two points so that leaves split, a low maximum
depth so that they overflow, coarsened LeafNodeRoutingTables, each delivery strategy, probe
multicast, lenient matching, churn). Every message a peer handles becomes a candidate: the
peer's state before (encoded), the message, and the DHT's answers the handler asked for
(recorded by running the one-node harness against the live system before the real handler
runs). The post-state of the harness is checked against the live peer's after the real
handler: the harness is the reference's handler, not a copy of it. A few variants of a
candidate's pre-state reach branches that live runs reach rarely (the tree node absent, as
after a loss beyond the replication bound, thesis §3.6; the node in the middle of a split,
decision D-SPLIT; the event already processed, §3.4.1; points installed after the publish).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import replace

from pubsub_spec.conformance.generators import CUTOFF, CUTOFF_H, GENERATORS
from pubsub_spec.conformance.steps.base import JSON, Case, canonical
from pubsub_spec.conformance.steps.thesis import (
    _Context,
    _Events,
    enc_message,
    enc_node,
    run_step,
)
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.run import run_trace
from pubsub_spec.reference.thesis.config import config_of, with_config
from pubsub_spec.reference.thesis.messages import TYPE_OF, Message, ProbePub
from pubsub_spec.reference.thesis.substrate import Peer
from pubsub_spec.reference.thesis.system import Item, TwoDTreeSystem

# (generator, profile, seed, config overrides): each run's settings, in order.
RUNS: tuple[tuple[str, str, int, dict[str, object]], ...] = (
    # an odd maximum depth: the grid of the points (2 * ceil(3 / 2) = 4 bits) is deeper than
    # the tree may grow, so a leaf at depth 3 overflows rather than splits (docs/design.md#core)
    ("zipf", "tiny", 1, {"capacity_min": 1, "capacity_max": 2, "max_depth": 3}),
    ("uniform", "small", 2, {"capacity_min": 1, "capacity_max": 2, "delivery": "grouped",
                             "probe": "multicast"}),
    ("uniform", "small", 3, {"capacity_min": 1, "capacity_max": 2, "delivery": "lbdd",
                             "lnrt_max_records": 2}),
    ("partial-lenient", "tiny", 4, {"capacity_min": 1, "capacity_max": 2, "max_depth": 3,
                                    "cutoff": CUTOFF, "cutoff_h": CUTOFF_H}),
    ("cutoff", "tiny", 5, {"capacity_min": 2, "capacity_max": 3,
                           "widening": (("s/a", 5.0), ("t/y", 1.0))}),
    ("churn", "small", 6, {"capacity_min": 1, "capacity_max": 2, "delivery": "grouped"}),
    ("partial-strict", "tiny", 7, {"capacity_min": 1, "capacity_max": 2}),
    ("identical", "tiny", 8, {"capacity_min": 1, "capacity_max": 2, "delivery": "lbdd"}),
    ("boundaries", "tiny", 9, {"capacity_min": 2, "capacity_max": 4, "lnrt_max_records": 3}),
)  # fmt: skip
PER_HANDLER = 40  # candidates kept per (run, handler) from the live run
VARIANTS_PER_HANDLER = 6  # base candidates per (run, handler) that also get variants
SAMPLE_EVERY = 5  # and every fifth one after those
VARIANTS_EVERY = 25


def _ignore(_: object) -> None:
    return None


class _Recorder(TwoDTreeSystem):
    """The reference system, recording a candidate for each message a peer handles."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.observer = _ignore  # the delivery tree id of EventDelivery, as the harness sets it
        self.cases: list[Case] = []
        self.run_name = ""
        self._depth = 0
        self._counts: dict[str, int] = {}
        self._dispatching = False

    def _context(self) -> _Context:
        alive = sorted(p.name for p in self.peers.values()) if self._departed else None
        return _Context(list(self.schemas.values()), self.matching, self.config, alive, {}, {})

    def _pre(self, peer: Peer, events: _Events) -> JSON:
        subs = [s.original for s in self.subs.values() if s.original.subscriber == peer.name]
        return {"node": enc_node(peer, subs, events), "context": self._context().to_json()}

    def _handle(self, peer: Peer, msg: Message) -> None:
        if self._depth:
            super()._handle(peer, msg)  # a held message replayed: part of the outer step
            return
        kind = TYPE_OF[type(msg)]
        n = self._counts.get(kind, 0)
        self._counts[kind] = n + 1
        record = n < PER_HANDLER or n % SAMPLE_EVERY == 0
        if record:
            events = _Events(dict(self.event_seq))
            pre = self._pre(peer, events)
            step_input = enc_message(msg, events)
            self._record(peer, kind, f"{self.run_name}-{n:03d}", pre, step_input, check=True)
            if (
                n < VARIANTS_PER_HANDLER
                or n % VARIANTS_EVERY == 0
                or kind in ("ProbePub", "EventDelivery")
            ):
                for label, variant, changed in _variants(pre, step_input):
                    self._record(peer, kind, f"{self.run_name}-{n:03d}-{label}", variant,
                                 changed, check=False)  # fmt: skip
        self._depth += 1
        try:
            super()._handle(peer, msg)
        finally:
            self._depth -= 1
        if record and self._check is not None:
            events = _Events(dict(self.event_seq))
            live = self._pre(peer, events)["node"]
            if canonical(live) != canonical(self._check):
                raise AssertionError(f"the one-node harness differs from the live peer {peer.name}"
                                     f" on {kind} ({self.run_name}-{n:03d})")  # fmt: skip

    def _dispatch(self, item: Item) -> str:
        self._dispatching = True
        try:
            return super()._dispatch(item)
        finally:
            self._dispatching = False

    def _on_probe_pub(self, peer: Peer, msg: ProbePub) -> None:
        # the engine may hand an arriving ProbePub to its handler without `_handle` (the hot
        # path): recorded as every other message (not the publisher's own, during an op)
        if self._depth or not self._dispatching:
            super()._on_probe_pub(peer, msg)
        else:
            self._handle(peer, msg)

    _check: JSON = None

    def _record(self, peer: Peer, kind: str, name: str, pre: JSON, step_input: JSON,
                check: bool) -> None:  # fmt: skip
        net = self.net
        oracle = (lambda k: net.home(k).name,
                  lambda k: self.peers[net.first_hop(peer, k)].name
                  if net.first_hop(peer, k) in self.peers else net.home(k).name)  # fmt: skip
        outcome, asked = run_step(copy.deepcopy(pre), step_input, oracle)
        pre = copy.deepcopy(pre)
        pre["context"]["overlay"] = {t: dict(sorted(v.items())) for t, v in asked.items()}
        self.cases.append(Case(kind, name, pre, step_input))
        if check:
            self._check = None if outcome.invalid else outcome.post["node"]


def _find(pre: JSON, step_input: JSON) -> JSON | None:
    """The tree node of the pre-state the input is addressed to."""
    tree = step_input.get("tree")
    if tree is None and "point" in step_input:
        p = step_input["point"]
        tree = f"{p['sub']['schema']}/{p['base']}"
    target = step_input.get("target")
    for n in pre["node"]["nodes"]:
        if n["tree"] == tree and n["bits"] == target:
            return n
    return None


def _variants(pre: JSON, step_input: JSON) -> Iterator[tuple[str, JSON, JSON]]:
    """(label, pre-state, input) variants of a candidate (module doc)."""
    kind = step_input["type"]
    if kind == "EventDelivery":
        yield from _delivery_variants(pre, step_input)
    if kind == "TransferSub" and not step_input["created"]:
        yield "exists", copy.deepcopy(pre), step_input  # the child already hosted: refused
    if kind == "TransferSub" and not step_input["created"]:
        inherited = copy.deepcopy(step_input)  # the parent's processed events (§3.4.1, D-SPLIT)
        inherited["seen"] = sorted({*inherited["seen"], "e-seen"})
        yield "inherit", copy.deepcopy(pre), inherited
    if kind == "TransferSub" and step_input["created"]:
        idle = copy.deepcopy(pre)  # a confirmation to a node that is not splitting: refused
        for n in idle["node"]["nodes"]:
            if (n["tree"], n["bits"]) == (step_input["tree"], step_input["target"]):
                n["splitting"], n["held"] = 0, []
        yield "idle", idle, step_input
    node = _find(pre, step_input)
    if node is None:
        return
    if kind in ("ProbeSub", "InsertSub", "ProbePub", "LeafUpdate") and node["bits"]:
        absent = copy.deepcopy(pre)
        absent["node"]["nodes"] = [
            n
            for n in absent["node"]["nodes"]
            if (n["tree"], n["bits"]) != (node["tree"], node["bits"])
        ]
        yield "absent", absent, step_input  # fmt: skip
    if kind in ("ProbeSub", "InsertSub") and node["lnrt"] is not None:
        fresh = copy.deepcopy(pre)  # the table just after the split (Program 3.1, line 52)
        m = _find(fresh, step_input)
        assert m is not None
        if m["lnrt"] != [m["bits"] + "0", m["bits"] + "1"]:
            m["lnrt"] = [m["bits"] + "0", m["bits"] + "1"]
            yield "fresh", fresh, step_input
    if kind == "LeafUpdate" and node["lnrt"] is not None and step_input["split"] in node["lnrt"]:
        after = len(node["lnrt"]) + 1  # records after the update, before any coarsening
        for limit in (after - 1, after):  # one merge (thesis §3.2.2, local merge), or none
            coarse = copy.deepcopy(pre)
            coarse["context"]["config"]["lnrt_max_records"] = max(2, limit)
            yield f"coarse{limit}", coarse, step_input
    if kind in ("ProbeSub", "InsertSub") and node["lnrt"] is not None and node["bits"]:
        # a point outside the zone it is routed to (thesis §3.3): refused
        outside = copy.deepcopy(step_input)
        b = node["bits"]
        outside["point"]["path"] = ("1" if b[0] == "0" else "0") + outside["point"]["path"][1:]
        yield "outside", copy.deepcopy(pre), outside
    if kind in ("ProbeSub", "InsertSub", "ProbePub") and node["lnrt"] is None:
        mid = copy.deepcopy(pre)
        m = _find(mid, step_input)
        assert m is not None
        m["points"], m["lnrt"], m["splitting"] = [], [m["bits"] + "0", m["bits"] + "1"], 2
        yield "splitting", mid, step_input
    if kind == "ProbePub" and node["lnrt"] is None:
        seen = copy.deepcopy(pre)
        m = _find(seen, step_input)
        assert m is not None
        m["seen"] = sorted({*m["seen"], step_input["event"]["id"]})
        yield "seen", seen, step_input
        if node["points"]:
            yield from _leaf_variants(pre, step_input, node)


def _leaf_variants(pre: JSON, step_input: JSON, node: JSON) -> Iterator[tuple[str, JSON, JSON]]:
    """Variants of a region probe reaching a leaf with points (thesis §3.4.1, leaf matching)."""
    yield "early", copy.deepcopy(pre), _early(step_input)
    twin = copy.deepcopy(pre)  # a second subscription of the same subscriber, same point
    m = _find(twin, step_input)
    assert m is not None
    p = copy.deepcopy(m["points"][0])
    p["sub"]["id"] += "-twin"
    m["points"] = sorted([*m["points"], p], key=lambda q: (q["sub"]["id"], q["segment"]["index"]))
    yield "twin", twin, step_input
    tree_attr = step_input["tree"].split("/", 1)[1]
    others = [a for a, _ in step_input["event"]["values"] if a != tree_attr]
    if others:  # a partial event: an attribute another predicate names is absent (strict)
        partial = copy.deepcopy(step_input)
        partial["event"]["values"] = [v for v in partial["event"]["values"] if v[0] != others[0]]
        yield "partial", copy.deepcopy(pre), partial
    for edge in ("lo", "hi"):  # the event on a bound of a stored point: closed ranges (§3.1)
        p = node["points"][0]
        seg = p["segment"]
        if edge == "hi" and not seg["closed"]:
            edge = "open"  # a remapped segment's upper bound is open (§3.5, decision D-SEG)
        at = copy.deepcopy(step_input)
        bound = seg["lo"] if edge == "lo" else seg["hi"]
        values = {a: (lo if edge == "lo" else hi) for a, lo, hi in p["sub"]["predicates"]}
        values[p["base"]] = bound
        at["event"]["values"] = [[a, x] for a, x in sorted(values.items())]
        yield f"at{edge}", copy.deepcopy(pre), at
    if any(q["segment"]["index"] > 0 for q in node["points"]):
        # lenient matching, the event without the tree's attribute: only segment 0 matches
        lenient = copy.deepcopy(pre)
        lenient["context"]["matching"] = "lenient"
        absent = copy.deepcopy(step_input)
        absent["event"]["values"] = [v for v in absent["event"]["values"] if v[0] != tree_attr]
        yield "lenient-absent", lenient, absent


def _delivery_variants(pre: JSON, step_input: JSON) -> Iterator[tuple[str, JSON, JSON]]:
    """An event without an attribute a target subscription of this node names: the
    subscriber's filter (thesis §3.3) decides by the matching mode. And an event on the
    bounds of a target subscription's original ranges: the filter's ranges are closed."""
    me = pre["node"]["name"]
    mine = {s["id"]: s for s in pre["node"]["subscriptions"]}
    yield from _bound_variants(pre, step_input, me, mine)
    for node, ids in step_input["targets"]:
        for sid in ids if node == me else ():
            preds = [a for a, _, _ in mine[sid]["predicates"]] if sid in mine else []
            for attr in preds:
                partial = copy.deepcopy(step_input)
                partial["event"]["values"] = [v for v in partial["event"]["values"] if v[0] != attr]
                if partial["event"]["values"]:
                    yield "partial", copy.deepcopy(pre), partial
                    lenient = copy.deepcopy(pre)
                    lenient["context"]["matching"] = "lenient"
                    yield "partial-lenient", lenient, partial
                    return


def _bound_variants(
    pre: JSON, step_input: JSON, me: str, mine: dict[str, JSON]
) -> Iterator[tuple[str, JSON, JSON]]:
    """The event's value of every attribute of this node's first target subscription set to
    the original predicate's low end (`atlow`), then its high end (`athigh`): delivered, as
    the filter's ranges are closed (thesis §3.3; a predicate is lo <= x <= hi)."""
    for node, ids in step_input["targets"]:
        for sid in ids if node == me else ():
            if sid not in mine:
                continue
            for label, end in (("atlow", 1), ("athigh", 2)):
                at = copy.deepcopy(step_input)
                values = {v[0]: v for v in at["event"]["values"]}
                for pred in mine[sid]["predicates"]:
                    values[pred[0]] = [pred[0], pred[end]]
                at["event"]["values"] = sorted(values.values(), key=lambda v: str(v[0]))
                yield label, copy.deepcopy(pre), at
            return


def _early(step_input: JSON) -> JSON:
    """The event published before every point of the leaf was installed (D-OPS)."""
    out = copy.deepcopy(step_input)
    out["event"]["seq"] = 0
    return out


def _exists(pre: JSON, step_input: JSON) -> JSON:
    out = copy.deepcopy(pre)
    out["node"]["nodes"].append({"tree": step_input["tree"], "bits": step_input["target"],
                                 "points": [], "lnrt": None, "seen": [], "splitting": 0,
                                 "held": []})  # fmt: skip
    out["node"]["nodes"].sort(key=lambda n: (n["tree"], n["bits"]))
    return out


def _trace(gen: str, profile: str, seed: int, overrides: dict[str, object]) -> Trace:
    trace = GENERATORS[gen](seed, 0, profile)
    return with_config(trace, replace(config_of(trace), **overrides))  # type: ignore[arg-type]


def candidates() -> Iterator[Case]:
    for gen, profile, seed, overrides in RUNS:
        trace = _trace(gen, profile, seed, overrides)
        system = _Recorder(trace.schemas, trace.matching, config_of(trace), trace.seed,
                           _names(trace))  # fmt: skip
        system.run_name = f"{gen}-{seed}"
        run_trace(trace, _given(system), check=False)
        for case in system.cases:
            if case.name.endswith("-exists"):
                yield replace(case, pre=_exists(case.pre, case.input))
            else:
                yield case


def _given(system: _Recorder) -> Callable[[Trace], _Recorder]:
    def make(_: Trace) -> _Recorder:
        return system

    return make


def _names(t: Trace) -> list[str]:
    from pubsub_spec.reference.common.ops import initial_node_names

    return initial_node_names(t.initial_nodes)
