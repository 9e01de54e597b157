"""Protocol rules of the thesis family (systems: thesis, lbdd); see conformance/OBSERVATIONS.md,
"thesis and lbdd" (format version 1).

`thesis` judges the 2d-tree protocol of Wei Li's thesis (UBC 2008): zones that only split,
points stored in the zone of the leaf holding them, RndLeafProbe and RndRegionProbe steps,
the LeafNodeUpdateMessage after a split, the maximum depth, and the event deliveries by the
strategy the run names (unicast, prefix-grouped multicast or LBDD). `lbdd` judges only the LBDD
delivery trees (decision D-OBS-LBDD, docs/lbdd.md): edges, buckets, depth, single receipt.

Rules read the observations and the trace only. The LBDD tree is the paper's function
`build_tree` of reference/lbdd/algorithms.py (MD5 digests, XOR buckets, Algorithms 1-2); the
2d-tree's zones are computed here from the trace's attribute domains (thesis §3.2.1).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from pubsub_spec.conformance.protocol_rules.base import Deviation, ObservedRun, Rule
from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.common.ops import Fail, Leave, Publish, Subscribe, Trace
from pubsub_spec.reference.lbdd.algorithms import bucket_no, build_tree
from pubsub_spec.reference.sim.observe import Observation
from pubsub_spec.reference.thesis.config import config_of

FORMAT_VERSION = 1
STRATEGIES = ("unicast", "multicast", "lbdd")
# the state changes each system reports (conformance/OBSERVATIONS.md)
STATES: dict[str, frozenset[str]] = {
    "thesis": frozenset({"host", "split", "store", "remove", "lnrt", "match"}),
    "lbdd": frozenset({"match"}),
}
# the message types that forward an event, and those that install a subscription
DISSEMINATION: dict[str, frozenset[str]] = {
    "thesis": frozenset({"ProbePub", "ProbePubMulticast", "EventDelivery"}),
    "lbdd": frozenset({"EventDelivery"}),
}
SUBSCRIPTION: dict[str, frozenset[str]] = {
    "thesis": frozenset({"ProbeSub", "InsertSub", "LeafUpdate", "TransferSub"}),
    "lbdd": frozenset(),
}

Indexed = tuple[int, Observation]
Zone = tuple[Fraction, Fraction, Fraction, Fraction]  # x0, x1, y0, y1: [x0, x1) x [y0, y1)


# -- reading a run ---------------------------------------------------------------------------
def _all(run: ObservedRun) -> Iterator[Indexed]:
    for i, o in enumerate(run.log):
        yield i, o.obs


def _sends(run: ObservedRun, *names: str) -> Iterator[Indexed]:
    for i, ob in _all(run):
        if ob.kind == "send" and ob.name in names:
            yield i, ob


def _events(trace: Trace) -> dict[str, Event]:
    return {op.event.id: op.event for op in trace.ops if isinstance(op, Publish)}


def _subscriber(trace: Trace) -> dict[str, str]:
    return {op.sub.id: op.sub.subscriber for op in trace.ops if isinstance(op, Subscribe)}


def _domains(trace: Trace) -> dict[str, tuple[Fraction, Fraction]]:
    """Tree name `schema/attribute` -> the attribute's domain (thesis §3.2: its square)."""
    return {
        f"{s.name}/{a.name}": (Fraction(a.min), Fraction(a.max))
        for s in trace.schemas
        for a in s.attributes
    }


def _churn(trace: Trace) -> bool:
    return any(isinstance(op, Leave | Fail) for op in trace.ops)


def _is_bits(v: Any) -> bool:
    return isinstance(v, str) and all(c in "01" for c in v)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# -- the 2d-tree's geometry (thesis §3.2, §3.2.1) ---------------------------------------------
@functools.lru_cache(maxsize=1 << 16)  # a pure function, called per probe and point
def zone(bits: str, lo: Fraction, hi: Fraction) -> Zone:
    """The zone of tree node `bits` in the square [lo, hi]^2: depth d halves x when d is even,
    y when d is odd; child 0 the lower half (thesis §3.2.1, Program 3.1)."""
    x0, x1, y0, y1 = lo, hi, lo, hi
    for d, b in enumerate(bits):
        if d % 2 == 0:
            mid = (x0 + x1) / 2
            x0, x1 = (x0, mid) if b == "0" else (mid, x1)
        else:
            mid = (y0 + y1) / 2
            y0, y1 = (y0, mid) if b == "0" else (mid, y1)
    return x0, x1, y0, y1


def _within(v: Fraction, a: Fraction, b: Fraction, hi: Fraction) -> bool:
    """v in [a, b), or in [a, b] when b is the domain's maximum."""
    return a <= v and (v < b or (b == hi and v == hi))


def zone_contains(z: Zone, hi: Fraction, x: Fraction, y: Fraction) -> bool:
    return _within(x, z[0], z[1], hi) and _within(y, z[2], z[3], hi)


def zone_overlaps_target(z: Zone, hi: Fraction, v: Fraction | None) -> bool:
    """Whether the zone meets the event's target area [min, v] x [v, max] (thesis §3.2,
    Fig. 3.1; with a cut-off line the searched band lies inside it, §3.5); an absent value
    (lenient matching, §3.4.1) searches the whole square."""
    if v is None:
        return True
    return z[0] <= v and (z[3] > v or z[3] == hi)


# -- LBDD delivery trees (LBDD §3.2-§3.5; decision D-OBS-LBDD) ----------------------------------
TreeKey = tuple[str, str, str]  # event, origin, tree id


def _lbdd_copies(run: ObservedRun) -> list[Indexed]:
    """The EventDelivery copies judged as LBDD: under `lbdd` every one, under `thesis` those
    whose strategy is `lbdd`."""
    out = []
    for i, ob in _sends(run, "EventDelivery"):
        if run.system == "lbdd" or ob.fields.get("strategy") == "lbdd":
            out.append((i, ob))
    return out


def _tree_key(ob: Observation) -> TreeKey:
    return (ob.event or "", str(ob.fields.get("origin")), str(ob.fields.get("tree_id", "")))


def _lbdd_fields(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    members_of: dict[TreeKey, tuple[str, ...]] = {}
    member_set: dict[TreeKey, frozenset[str]] = {}
    for i, ob in _lbdd_copies(run):
        f = ob.fields
        origin, members = f.get("origin"), f.get("members")
        key = _tree_key(ob)
        known = members_of.get(key)
        if known is not None and isinstance(members, list) and known == tuple(members):
            if ob.to not in member_set[key] and ob.to != origin:  # the rest: at its first copy
                return rule.deviation(i, f"a copy to {ob.to}, not a member of the tree")
            if isinstance(ob.event, str) and f.get("strategy", "lbdd") == "lbdd":
                continue
        if not isinstance(ob.event, str):
            return rule.deviation(i, "an EventDelivery without its event id")
        if not isinstance(origin, str) or not origin:
            return rule.deviation(i, "an EventDelivery without its tree's origin (a node name)")
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            return rule.deviation(i, "an EventDelivery without its tree's members (node names)")
        if members != sorted(set(members)):
            return rule.deviation(i, "members must be sorted and without duplicates")
        if origin in members:
            return rule.deviation(i, f"the origin {origin} is listed among the members")
        if "strategy" in f and f["strategy"] != "lbdd":
            return rule.deviation(i, f"strategy {f['strategy']!r} judged as LBDD")
        if "tree_id" in f and not isinstance(f["tree_id"], str):
            return rule.deviation(i, "tree_id must be a string")
        if ob.to not in members and ob.to != origin:  # to the origin: a cycle (lbdd/tree)
            return rule.deviation(i, f"a copy to {ob.to}, not a member of the tree")
        seen = members_of.setdefault(key, tuple(members))
        member_set.setdefault(key, frozenset(members))
        if seen != tuple(members):
            return rule.deviation(i, f"members of event {ob.event} from {origin} changed")
    return None


def _lbdd_tree(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    got: dict[TreeKey, set[str]] = defaultdict(set)
    for i, ob in _lbdd_copies(run):
        key = _tree_key(ob)
        origin, have = key[1], got[key]
        if ob.to == origin:
            return rule.deviation(i, f"the root {origin} receives a copy of {ob.event}: a cycle")
        if ob.to in have:
            return rule.deviation(i, f"{ob.to} receives a second copy of {ob.event}")
        if ob.node != origin and ob.node not in have:
            return rule.deviation(i, f"{ob.node} forwards {ob.event} without having received it")
        have.add(ob.to or "")
    return None


def _lbdd_depth(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    depth: dict[TreeKey, dict[str, int]] = defaultdict(dict)
    bound: dict[TreeKey, int] = {}
    for i, ob in _lbdd_copies(run):
        key = _tree_key(ob)
        origin = key[1]
        if key not in bound:
            members = ob.fields.get("members") or []
            # LBDD §3.5.2: each hop climbs to a higher non-empty bucket
            bound[key] = len({bucket_no(origin, m) for m in members if m != origin})
        d = depth[key].get(ob.node, 0) + 1 if ob.node != origin else 1
        if d > bound[key]:
            return rule.deviation(
                i, f"{ob.to} is {d} hops from {origin}; at most {bound[key]} non-empty buckets"
            )
        depth[key].setdefault(ob.to or "", d)
    return None


def _lbdd_edge(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    trees: dict[tuple[str, tuple[str, ...]], dict[str, list[str]]] = {}
    for i, ob in _lbdd_copies(run):
        origin = str(ob.fields.get("origin"))
        members = tuple(ob.fields.get("members") or ())
        tree = trees.get((origin, members))
        if tree is None:
            tree = trees[(origin, members)] = build_tree(origin, list(members))
        if ob.to not in tree.get(ob.node, []):
            kids = tree.get(ob.node, [])
            return rule.deviation(
                i,
                f"{ob.node} -> {ob.to} is not an edge of the LBDD tree of {origin} "
                f"(Algorithms 1-2 give {ob.node} the children {kids})",
            )
    return None


def _lbdd_complete(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    if _churn(run.trace):
        return None  # a crashed relay loses its subtree (LBDD §3.4)
    first: dict[TreeKey, int] = {}
    members: dict[TreeKey, set[str]] = {}
    got: dict[TreeKey, set[str]] = defaultdict(set)
    for i, ob in _lbdd_copies(run):
        key = _tree_key(ob)
        first.setdefault(key, i)
        members.setdefault(key, set(ob.fields.get("members") or ()))
        got[key].add(ob.to or "")
    for key, i in first.items():
        missing = sorted(members[key] - got[key])
        if missing:
            return rule.deviation(i, f"members {missing} never receive {key[0]} from {key[1]}")
    return None


def _lbdd_delivered(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    subscriber = _subscriber(run.trace)
    reached = {(e.id, e.publisher) for e in _events(run.trace).values()}
    for _, ob in _all(run):
        if ob.kind == "state" and ob.name == "match":
            reached.add((ob.event or "", ob.node))  # an origin (its tree may have no member)
    for _, ob in _lbdd_copies(run):
        reached.add((ob.event or "", ob.to or ""))
        reached.add((ob.event or "", str(ob.fields.get("origin"))))
    for d in run.deliveries:
        node = subscriber.get(d.sub_id, "")
        if (d.event_id, node) not in reached:
            return rule.deviation(
                None, f"{d.event_id} delivered to {d.sub_id} at {node}, which no tree reached"
            )
    return None


def _rule(rid: str, source: str, doc: str, check: Callable[..., Deviation | None]) -> Rule:
    holder: list[Rule] = []

    def run_check(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
        return check(holder[0], run, reference)

    r = Rule(rid, source, doc, run_check)
    holder.append(r)
    return r


LBDD_RULES: tuple[Rule, ...] = (
    _rule(
        "lbdd/fields",
        "LBDD §3.2",
        "every EventDelivery names its event, origin and sorted members (the origin not among "
        "them, the receiver among them), the same members for every copy of one tree",
        _lbdd_fields,
    ),
    _rule(
        "lbdd/tree",
        "LBDD §3.5.1, Theorem 1",
        "per tree the copies form a tree rooted at the origin: the origin receives none, no "
        "node receives two, a node forwards only after receiving",
        _lbdd_tree,
    ),
    _rule(
        "lbdd/depth",
        "LBDD §3.5.2",
        "no node is more hops from the origin than there are non-empty buckets among the members",
        _lbdd_depth,
    ),
    _rule(
        "lbdd/tree-edge",
        "LBDD §3.2-§3.3, Algorithms 1-2",
        "every copy node -> to is an edge of build_tree(origin, members): MD5 digests, XOR "
        "buckets, each node's slice of the next non-empty bucket",
        _lbdd_edge,
    ),
    _rule(
        "lbdd/complete",
        "LBDD §3.5.1, Theorem 1",
        "every member of a tree receives a copy (traces without leave or fail)",
        _lbdd_complete,
    ),
    _rule(
        "lbdd/delivered-through-tree",
        "LBDD §3.1",
        "every delivery is at the event's publisher, at the origin of a tree of the event (a "
        "match state, or a copy sent) or at a node that received a copy of it",
        _lbdd_delivered,
    ),
)


# -- the 2d-tree (thesis §3.2-§3.5) -------------------------------------------------------------
_NEEDS: dict[str, tuple[str, ...]] = {
    "ProbeSub": ("tree", "bits", "point", "segment"),
    "InsertSub": ("tree", "bits", "point", "segment"),
    "LeafUpdate": ("tree", "bits", "split"),
    "TransferSub": ("tree", "bits"),
    "ProbePub": ("tree", "bits"),
    "ProbePubMulticast": ("dests",),
    "EventDelivery": ("strategy", "origin", "targets"),
    "host": ("tree", "bits"),
    "split": ("tree", "bits"),
    "store": ("tree", "bits", "point", "segment"),
    "remove": ("tree", "bits", "segment"),
    "lnrt": ("tree", "bits", "records"),
    "match": ("tree", "bits", "strategy", "targets"),
}


def _point(v: Any) -> tuple[Fraction, Fraction] | None:
    if isinstance(v, list) and len(v) == 2 and all(_is_number(x) for x in v):
        return Fraction(v[0]), Fraction(v[1])
    return None


def _thesis_fields(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    domains = _domains(run.trace)
    for i, ob in _all(run):
        f = ob.fields
        for name in _NEEDS.get(ob.name, ()):
            if name not in f:
                return rule.deviation(i, f"{ob.name} without its field {name!r}")
        if "tree" in f and f["tree"] not in domains:
            return rule.deviation(i, f"{ob.name}: no attribute tree {f['tree']!r} in the trace")
        for name in ("bits", "split"):
            if name in f and not _is_bits(f[name]):
                return rule.deviation(i, f"{ob.name}: {name} {f[name]!r} is not a bit string")
        if "point" in f and _point(f["point"]) is None:
            return rule.deviation(i, f"{ob.name}: point must be [lo, hi] numbers")
        if ob.name == "ProbePubMulticast":
            dests = f["dests"]
            ok = isinstance(dests, list) and all(
                isinstance(d, list) and len(d) == 2 and d[0] in domains and _is_bits(d[1])
                for d in dests
            )
            if not ok:
                return rule.deviation(i, "ProbePubMulticast: dests must be [[tree, bits], ...]")
        if ob.name == "EventDelivery" and ob.kind == "send":
            if f["strategy"] not in STRATEGIES:
                return rule.deviation(i, f"EventDelivery: strategy {f['strategy']!r}")
            targets = f["targets"]
            ok = isinstance(targets, list) and all(
                isinstance(t, list)
                and len(t) == 2
                and isinstance(t[0], str)
                and isinstance(t[1], list)
                and all(isinstance(s, str) for s in t[1])
                for t in targets
            )
            if not ok:
                return rule.deviation(i, "EventDelivery: targets must be [[node, [sub, ...]], ...]")
        if ob.kind == "send" and ob.name in DISSEMINATION["thesis"] and ob.event is None:
            return rule.deviation(i, f"{ob.name} without its event id")
        if ob.kind == "send" and ob.name in ("ProbeSub", "InsertSub") and ob.sub is None:
            return rule.deviation(i, f"{ob.name} without its subscription id")
    return None


def _tree_nodes(run: ObservedRun) -> Iterator[tuple[int, Observation, str, str]]:
    for i, ob in _all(run):
        if ob.kind == "state" and ob.name in ("host", "split", "store", "remove", "lnrt"):
            yield i, ob, str(ob.fields.get("tree")), str(ob.fields.get("bits"))


def _growth_only(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Zones only split, never merge (thesis §3.2.2: no merge; TwoDTree's growth-only tree)."""
    split: set[tuple[str, str]] = set()
    for i, ob, tree, bits in _tree_nodes(run):
        node = (tree, bits)
        if ob.name == "host" and bits and (tree, bits[:-1]) not in split:
            return rule.deviation(i, f"{tree}:{bits} hosted but its parent never split")
        if ob.name == "split":
            if node in split:
                return rule.deviation(i, f"{tree}:{bits} splits a second time")
            if bits and (tree, bits[:-1]) not in split:
                return rule.deviation(i, f"{tree}:{bits} splits but was never created")
            children = ob.fields.get("children")
            if children is not None and children != [bits + "0", bits + "1"]:
                return rule.deviation(i, f"{tree}:{bits} splits into {children}")
            split.add(node)
        if ob.name in ("store", "remove") and bits and (tree, bits[:-1]) not in split:
            return rule.deviation(i, f"a point at {tree}:{bits}, a zone that was never created")
    return None


def _depth(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """TwoDTree.tla BoundedDepth: no tree node deeper than the maximum depth D (thesis §3.2.2;
    D = the trace's `thesis.max_depth`)."""
    bound = config_of(run.trace).max_depth
    for i, ob in _all(run):
        f = ob.fields
        deepest = max(
            [len(f[k]) for k in ("bits", "split") if isinstance(f.get(k), str)]
            + [len(d[1]) for d in f.get("dests", []) if isinstance(d, list) and len(d) == 2],
            default=0,
        )
        if ob.kind == "state" and ob.name == "split":
            deepest += 1  # the children
        if deepest > bound:
            return rule.deviation(i, f"{ob.name} reaches depth {deepest} > the maximum {bound}")
    return None


def _leaf_update(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Program 3.1, lines 54-55: a node that split sends a LeafNodeUpdateMessage to its parent;
    no LeafUpdate names a split that did not happen."""
    pending: dict[tuple[str, str], int] = {}
    split: set[tuple[str, str]] = set()
    for i, ob in _all(run):
        f = ob.fields
        if ob.kind == "state" and ob.name == "split":
            node = (str(f.get("tree")), str(f.get("bits")))
            split.add(node)
            if node[1]:
                pending[node] = i
        elif ob.kind == "send" and ob.name == "LeafUpdate":
            node = (str(f.get("tree")), str(f.get("split")))
            if node not in split:
                return rule.deviation(i, f"a LeafUpdate for {node[0]}:{node[1]}, which never split")
            target = str(f.get("bits"))
            if not (len(target) < len(node[1]) and node[1].startswith(target)):
                return rule.deviation(i, f"a LeafUpdate of {node[1]} sent to {target}, not upward")
            if target == node[1][:-1]:
                pending.pop(node, None)
    if pending:
        (tree, bits), i = min(pending.items(), key=lambda kv: kv[1])
        return rule.deviation(i, f"{tree}:{bits} split but no LeafUpdate went to its parent")
    return None


def _points(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Every stored point is in the zone of the leaf storing it, and stays stored at a leaf
    until removed (thesis §3.2.2 hand-off, §3.3; TwoDTree's NoMiss)."""
    domains = _domains(run.trace)
    split: set[tuple[str, str]] = set()
    at: dict[tuple[str, str], dict[tuple[str, int], int]] = defaultdict(dict)
    orphaned: dict[tuple[str, int], int] = {}  # points of a split zone not yet handed on
    for i, ob, tree, bits in _tree_nodes(run):
        node, f = (tree, bits), ob.fields
        if ob.name == "split":
            split.add(node)
            orphaned.update(at.pop(node, {}))
        elif ob.name == "store":
            if node in split:
                return rule.deviation(i, f"a point stored at {tree}:{bits}, which has split")
            pt = _point(f.get("point"))
            lo, hi = domains.get(tree, (Fraction(0), Fraction(0)))
            if pt is None or not zone_contains(zone(bits, lo, hi), hi, *pt):
                return rule.deviation(i, f"point {f.get('point')} is outside zone {tree}:{bits}")
            key = (str(ob.sub), int(f.get("segment", 0)))
            orphaned.pop(key, None)
            at[node][key] = i
        elif ob.name == "remove":
            key = (str(ob.sub), int(f.get("segment", 0)))
            at[node].pop(key, None)
            orphaned.pop(key, None)
    if orphaned:
        (sub, seg), i = min(orphaned.items(), key=lambda kv: kv[1])
        return rule.deviation(i, f"point {seg} of {sub} left a split zone and is stored nowhere")
    return None


def _leaf_probe(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """RndLeafProbe (thesis §3.3, Program 3.2): every probe and insert of a point goes to a zone
    containing the point (a level of its path, a jump back along it, or a record holding it)."""
    domains = _domains(run.trace)
    for i, ob in _sends(run, "ProbeSub", "InsertSub"):
        f = ob.fields
        tree, bits = str(f.get("tree")), str(f.get("bits"))
        lo, hi = domains.get(tree, (Fraction(0), Fraction(0)))
        pt = _point(f.get("point"))
        if pt is None or not zone_contains(zone(bits, lo, hi), hi, *pt):
            return rule.deviation(
                i, f"{ob.name} of point {f.get('point')} to zone {tree}:{bits}, which lacks it"
            )
    return None


def _probe_overlap(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """RndRegionProbe (thesis §3.4.1, Program 3.3 line 49; §3.4.2): a region probe goes only to
    zones overlapping the event's target area on an attribute of the event's schema (in strict
    matching, an attribute the event has)."""
    events, domains = _events(run.trace), _domains(run.trace)
    strict = run.trace.matching == "strict"
    exact: dict[tuple[str, str], Fraction | None] = {}  # (event, attribute) -> its value
    for i, ob in _sends(run, "ProbePub", "ProbePubMulticast"):
        f = ob.fields
        event = events.get(ob.event or "")
        if event is None:
            return rule.deviation(i, f"a probe of {ob.event}, which was never published")
        if ob.name == "ProbePub":
            dests = [[f.get("tree"), f.get("bits")]]
        else:
            dests = list(f.get("dests") or [])
        for tree, bits in dests:
            schema, _, attr = str(tree).partition("/")
            if schema != event.schema:
                return rule.deviation(i, f"a probe of {event.id} ({event.schema}) to tree {tree}")
            v = event.value(attr)
            if v is None and strict:
                return rule.deviation(i, f"a probe of {event.id} on {attr}, which it lacks")
            lo, hi = domains.get(str(tree), (Fraction(0), Fraction(0)))
            if (event.id, attr) not in exact:
                exact[(event.id, attr)] = None if v is None else Fraction(v)
            fv = exact[(event.id, attr)]
            if not zone_overlaps_target(zone(str(bits), lo, hi), hi, fv):
                return rule.deviation(
                    i, f"a probe of {event.id} to {tree}:{bits}, outside its target area"
                )
    return None


def _deliveries(run: ObservedRun) -> list[Indexed]:
    return list(_sends(run, "EventDelivery"))


def _matches(run: ObservedRun) -> Iterator[Indexed]:
    for i, ob in _all(run):
        if ob.kind == "state" and ob.name == "match":
            yield i, ob


def _delivery_root(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Thesis §3.4.1, §3.4.3: a leaf that a region probe reached matches the event and is the
    root of its delivery; every EventDelivery belongs to such a match."""
    events = _events(run.trace)
    probed: set[tuple[str, str, str]] = set()
    roots: set[TreeKey] = set()
    for i, ob in _all(run):
        f = ob.fields
        if ob.kind == "send" and ob.name == "ProbePub":
            probed.add((ob.event or "", str(f.get("tree")), str(f.get("bits"))))
        elif ob.kind == "send" and ob.name == "ProbePubMulticast":
            for d in f.get("dests") or []:
                probed.add((ob.event or "", str(d[0]), str(d[1])))
        elif ob.kind == "state" and ob.name == "match":
            event = events.get(ob.event or "")
            leaf = (ob.event or "", str(f.get("tree")), str(f.get("bits")))
            # the publisher handles the destinations it is home for itself (Program 3.4)
            if leaf not in probed and (event is None or event.publisher != ob.node):
                return rule.deviation(i, f"{ob.node} matches {ob.event} at a leaf never probed")
            roots.add((ob.event or "", ob.node, str(f.get("tree_id", ""))))
        elif ob.kind == "send" and ob.name == "EventDelivery" and _tree_key(ob) not in roots:
            return rule.deviation(
                i, f"{ob.event} delivered from {ob.fields.get('origin')} without a match"
            )
    return None


def _delivery_tree(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Thesis §3.4.3 (unicast) and §3.4.2, Program 3.4 (prefix-grouped multicast): each
    subscriber's copy travels one path from the origin, no node on it twice, and ends at the
    subscriber (traces without leave or fail); unicast is one hop from the origin."""
    at: dict[tuple[TreeKey, str], list[str]] = {}
    for i, ob in _deliveries(run):
        strategy = ob.fields.get("strategy")
        if strategy == "lbdd":
            continue  # judged by the lbdd/ rules
        origin = str(ob.fields.get("origin"))
        for t, _ in ob.fields.get("targets") or []:
            key = (_tree_key(ob), str(t))
            path = at.get(key)
            if path is None:
                if ob.node != origin:
                    return rule.deviation(
                        i, f"{ob.node} forwards {ob.event} for {t} first, not {origin}"
                    )
                path = at[key] = [origin]
            elif strategy == "unicast":
                return rule.deviation(i, f"a second unicast copy of {ob.event} for {t}")
            elif path[-1] == t:
                return rule.deviation(i, f"{ob.event} for {t} forwarded beyond {t}")
            if ob.node != path[-1]:
                return rule.deviation(i, f"{ob.node} forwards {ob.event} for {t} out of its path")
            if ob.to in path and not (ob.node == ob.to == t and len(path) == 1):
                # (a unicast copy from the leaf's peer to itself, thesis §3.4.3, is no cycle)
                return rule.deviation(i, f"{ob.event} for {t} comes back to {ob.to}: a cycle")
            path.append(ob.to or "")
            if strategy == "unicast" and ob.to != t:
                return rule.deviation(i, f"a unicast copy of {ob.event} for {t} sent to {ob.to}")
    if _churn(run.trace):
        return None  # a relay that fails loses what it carried (thesis §3.6 replicates the tree)
    for i, ob in _matches(run):
        if ob.fields.get("strategy") == "lbdd":
            continue  # lbdd/complete
        root: TreeKey = (ob.event or "", ob.node, str(ob.fields.get("tree_id", "")))
        for t, _ in ob.fields.get("targets") or []:
            if t == ob.node and ob.fields.get("strategy") != "unicast":
                continue  # accepted at the origin
            path = at.get((root, str(t)))
            if path is None or path[-1] != t:
                return rule.deviation(i, f"{ob.event} matched for {t} never reaches it")
    return None


def _arrivals(run: ObservedRun) -> Iterator[tuple[int, str, str, str]]:
    """(index, event, subscription, node) for each subscription an EventDelivery brings to its
    target node, and for the origin's own targets (accepted where the leaf matched)."""
    for i, ob in _all(run):
        f = ob.fields
        if ob.kind == "state" and ob.name == "match" and f.get("strategy") != "unicast":
            for t, sids in f.get("targets") or []:
                if t == ob.node:  # multicast and LBDD: the origin keeps its own part
                    for sid in sids:
                        yield i, ob.event or "", str(sid), ob.node
        elif ob.kind == "send" and ob.name == "EventDelivery":
            for t, sids in f.get("targets") or []:
                if t == ob.to:
                    for sid in sids:
                        yield i, ob.event or "", str(sid), str(t)


def _single_delivery(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Thesis §3.5 with half-open segments (CutoffRemap.tla, decision D-SEG): per event each
    subscription is matched at one leaf at most (one segment holds the value) and reaches its
    subscriber once, remapped cut-off points included."""
    subscriber = _subscriber(run.trace)
    matched: set[tuple[str, str]] = set()
    for i, ob in _matches(run):
        for _, sids in ob.fields.get("targets") or []:
            for sid in sids:
                if (ob.event or "", sid) in matched:
                    return rule.deviation(i, f"{ob.event} matches {sid} at a second leaf")
                matched.add((ob.event or "", sid))
    got: set[tuple[str, str]] = set()
    for i, event, sid, node in _arrivals(run):
        if subscriber.get(sid, node) != node:
            return rule.deviation(i, f"{sid} brought to {node}, not its subscriber")
        if (event, sid) in got:
            return rule.deviation(i, f"{event} brought to {sid} a second time")
        got.add((event, sid))
    return None


def _delivered_by_message(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """Thesis §3.4.3: a subscriber delivers only what a leaf matched and an EventDelivery
    brought it (or what the leaf matched on its own peer); the subscriber filters the false
    positives of range widening (§3.3), so delivered is a subset of brought."""
    brought = {(event, sid) for _, event, sid, _ in _arrivals(run)}
    for d in run.deliveries:
        if (d.event_id, d.sub_id) not in brought:
            return rule.deviation(None, f"{d.event_id} delivered to {d.sub_id} without a message")
    return None


def _lnrt(rule: Rule, run: ObservedRun, _ref: ObservedRun) -> Deviation | None:
    """LeafNodeRoutingTable (thesis §3.2.2, Table 3.1): its records are descendants of its
    node that together cover the node's zone (the leaves of a full binary tree below it)."""
    for i, ob, tree, bits in _tree_nodes(run):
        if ob.name != "lnrt":
            continue
        records = ob.fields.get("records")
        if not isinstance(records, list) or not _partition(bits, records):
            return rule.deviation(i, f"LeafNodeRoutingTable of {tree}:{bits}: {records}")
    return None


def _partition(owner: str, records: Sequence[Any]) -> bool:
    total, depth = Fraction(0), len(owner)
    recs = sorted(str(r) for r in records)
    for j, r in enumerate(recs):
        if not _is_bits(r) or not r.startswith(owner) or len(r) == depth:
            return False
        if j + 1 < len(recs) and recs[j + 1].startswith(r):
            return False
        total += Fraction(1, 2 ** (len(r) - depth))
    return total == 1


THESIS_RULES: tuple[Rule, ...] = (
    _rule(
        "thesis/fields",
        "thesis §4.2.1",
        "every observation carries the fields of its type (conformance/OBSERVATIONS.md)",
        _thesis_fields,
    ),
    _rule(
        "thesis/growth-only",
        "thesis §3.2.2",
        "zones only split: a node splits once, only after it was created by its parent's split",
        _growth_only,
    ),
    _rule(
        "thesis/depth",
        "thesis §3.2.2; TwoDTree BoundedDepth",
        "no tree node is deeper than the maximum depth D",
        _depth,
    ),
    _rule(
        "thesis/leaf-update-after-split",
        "thesis §3.2.2, Program 3.1 lines 54-55",
        "a non-root node that split sends a LeafUpdate to its parent; every LeafUpdate names a "
        "split that happened and goes up the tree",
        _leaf_update,
    ),
    _rule(
        "thesis/lnrt-partition",
        "thesis §3.2.2, Table 3.1",
        "a LeafNodeRoutingTable's records are the leaves of a full binary tree below its node",
        _lnrt,
    ),
    _rule(
        "thesis/points-in-zone",
        "thesis §3.3, Program 3.2 line 50; §3.2.2",
        "a point is stored only at an unsplit node whose zone contains it, and a split node's "
        "points are stored again below it",
        _points,
    ),
    _rule(
        "thesis/leaf-probe-zone",
        "thesis §3.3, Program 3.2",
        "every ProbeSub and InsertSub goes to a zone containing its point",
        _leaf_probe,
    ),
    _rule(
        "thesis/probe-overlap",
        "thesis §3.4.1, Program 3.3 line 49",
        "every region probe goes to a zone overlapping the event's target area",
        _probe_overlap,
    ),
    _rule(
        "thesis/delivery-root",
        "thesis §3.4.1, §3.4.3",
        "an event's delivery starts at a leaf that matched it, and that leaf was probed",
        _delivery_root,
    ),
    _rule(
        "thesis/delivery-tree",
        "thesis §3.4.2 Program 3.4, §3.4.3",
        "each subscriber's copy of a delivery follows one path from its origin, no node twice",
        _delivery_tree,
    ),
    *(r for r in LBDD_RULES if r.id != "lbdd/delivered-through-tree"),
    _rule(
        "thesis/single-delivery",
        "thesis §3.5; CutoffRemap",
        "each subscription is carried to its subscriber at most once per event, remapped "
        "cut-off points included",
        _single_delivery,
    ),
    _rule(
        "thesis/delivered-by-message",
        "thesis §3.4.3",
        "every delivery was carried to its subscriber by an EventDelivery (or matched on its "
        "own peer)",
        _delivered_by_message,
    ),
)

# claimed system name -> its rules (beside the generic ones of protocol_rules/generic.py)
RULES: dict[str, tuple[Rule, ...]] = {"thesis": THESIS_RULES, "lbdd": LBDD_RULES}


def first_deviation(
    rules: Sequence[Rule], run: ObservedRun, reference: ObservedRun | None = None
) -> Deviation | None:
    """The first deviation of `run` under `rules`, in their order (OBSERVATIONS.md)."""
    for r in rules:
        dev = r.check(run, reference if reference is not None else run)
        if dev is not None:
            return dev
    return None


def rule_ids(system: str) -> Mapping[str, Rule]:
    return {r.id: r for r in RULES[system]}
