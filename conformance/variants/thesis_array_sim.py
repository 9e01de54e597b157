"""ArraySim: an array-based variant of the core simulator (reference/thesis/system.py).

What it keeps of the protocol, and how:
- **Stored points** (thesis §3.3, §3.5): the same `reference.thesis.points.stored_points` (base
  attribute, range widening, cut-off segments), from the subscription's own generator (decision
  D-POINTS), kept as columns: base attribute, segment bounds and closure, sequence number, alive.
- **The growth-only 2d-tree** (§3.2.2, Program 3.1): flat node tables (bits, home peer, leaf or
  not, children) and one int array `leaf_of` giving each point's leaf; a leaf splits when its
  load exceeds the capacity of the peer that hosts it (Table 4.1: rand(10, 30) per peer, seeded
  by peer name as in the reference), never past `max_depth`.
- **Homes and replication** (§3.2.1, §3.6): a tree node lives on the peer numerically closest
  to hash(identifier) (reference.overlay.pastry.PastryRing); a failure loses a node's points
  when its home and all k replicas fail together, exactly as `TwoDTreeSystem._remove_peers` decides.
- **Matching at the leaves** (§3.4.1, §3.5, decisions D-SEG and D-LENIENT): per event, the
  indexed matcher (`indexed_matcher.py`) gives the live subscriptions whose original predicates
  match (what the subscriber keeps, §3.3; a departed subscriber's end, D-CHURN), then a compiled
  pass over those subscriptions' points (`array_kernels.leaf_matches`; a subscription's points
  are consecutive rows) keeps the segment that holds the value (or segment 0 when the event lacks
  the base attribute, lenient) among the points stored before the publish (D-OPS).

What it drops: messages, latencies and routing. Under decision D-OPS the reference's delivery
set does not depend on them: a subscribe completes before any later op, unsubscribe, leave and
fail wait for quiescence, and the split fix (D-SPLIT) makes a publish reach every point stored
before it. The one timing it does not reproduce is a joining peer's not-ready window (§3.6,
`join_ready_ms`): here a peer is ready as it joins (decision V-READY in docs/conformance.md). That
can change which peer hosts a node, hence the capacity at a split and the tree's shape, and so
which points a later failure beyond the replication bound destroys; with no such loss (every
conformance trace: the reference must equal the oracle there) the deliveries are the same.
tests/test_thesis_array_sim.py compares deliveries, lost points and final leaves with the reference.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pubsub_spec.conformance.fingerprint import (
    DeliverySink,
    Fingerprint,
    FingerprintSink,
    RecordSink,
)
from pubsub_spec.conformance.variants.array_kernels import leaf_matches
from pubsub_spec.conformance.variants.indexed_matcher import IndexedMatcher
from pubsub_spec.reference.common.model import Attribute, Event, MatchMode, Subscription, qualified
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Publish,
    Subscribe,
    Trace,
    Unsubscribe,
    initial_node_names,
)
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.thesis.config import ThesisConfig, config_of
from pubsub_spec.reference.thesis.points import stored_points
from pubsub_spec.reference.thesis.space import Square
from pubsub_spec.reference.thesis.tree import identifier

EXACT = float(2**53)  # numbers beyond this are not exact in float64


def _exact(v: float | int, where: str) -> float:
    f = float(v)
    if abs(f) >= EXACT:
        raise ValueError(f"{where}: {v} is beyond 2^53, not exact in float64")
    return f


class _Columns:
    """Growable numpy columns, one row per stored point."""

    def __init__(self, spec: dict[str, tuple[Any, Any]]) -> None:
        self.n = 0
        self._spec = spec
        self.cols: dict[str, Any] = {
            name: np.full(64, fill, dtype) for name, (dtype, fill) in spec.items()
        }

    def append(self) -> int:
        if self.n == len(self.cols[next(iter(self.cols))]):
            for name, (dtype, fill) in self._spec.items():
                old = self.cols[name]
                new = np.full(old.size * 2, fill, dtype=dtype)
                new[: old.size] = old
                self.cols[name] = new
        self.n += 1
        return self.n - 1

    def __getitem__(self, name: str) -> Any:
        return self.cols[name][: self.n]


@dataclass
class _SchemaState:
    attrs: list[str]
    matcher: IndexedMatcher  # the original predicates (§3.3, kept by the subscriber), per sub
    points: _Columns  # sub, base, seg_lo, seg_hi, closed, first, seq, alive
    # per subscription row: its points are rows [start, start + count) of `points`
    rows: _Columns = field(
        default_factory=lambda: _Columns({"start": (np.int64, 0), "count": (np.int64, 0)})
    )


@dataclass
class _Node:
    qattr: str
    bits: str
    key: int
    points: set[int]  # global point numbers
    children: tuple[int, int] | None = None


@dataclass(frozen=True)
class ArraySimResult:
    deliveries: list[Delivery]  # in the order made: by event, then by subscription
    points_lost: int
    splits: int
    overflow: int
    leaves: frozenset[tuple[str, str]]


class ArraySim:
    def __init__(self, trace: Trace, sink: DeliverySink | None = None) -> None:
        self.config: ThesisConfig = config_of(trace)
        self.matching: MatchMode = trace.matching
        self.seed = trace.seed
        c = self.config
        self.ring = PastryRing(c.id_bits, c.digit_bits, c.leaf_set_size)
        self._ids: list[int] = []  # the ring's peer ids, sorted
        self._homes: dict[int, int] = {}  # node key -> home, until the membership changes
        self.capacity: dict[int, int] = {}
        self.pid_of: dict[str, int] = {}
        self.attrs: dict[str, Attribute] = {}
        self.squares: dict[str, Square] = {}
        self.schemas: dict[str, _SchemaState] = {}
        self.nodes: list[_Node] = []
        self.root: dict[str, int] = {}
        # global point number -> (schema, row in that schema's point columns)
        self.point_at: list[tuple[str, int]] = []
        self.point_path: list[str] = []
        self.points_of: dict[str, list[int]] = {}
        self.leaf_of = np.zeros(64, dtype=np.int64)
        self.event_seq: dict[str, int] = {}
        self.points_lost = self.splits = self.overflow = 0
        self.records = RecordSink()
        self.sink: DeliverySink = self.records if sink is None else sink
        for name in initial_node_names(trace.initial_nodes):
            self._add_peer(name)
        self.schema_of: dict[str, str] = {}
        for s in trace.schemas:
            points = _Columns(
                {
                    "sub": (np.int64, -1),
                    "base": (np.int64, -1),
                    "seg_lo": (np.float64, 0.0),
                    "seg_hi": (np.float64, 0.0),
                    "closed": (np.bool_, False),
                    "first": (np.bool_, False),
                    "seq": (np.int64, 0),
                    "alive": (np.bool_, False),
                }
            )
            matcher = IndexedMatcher(s, trace.matching)
            self.schemas[s.name] = _SchemaState([a.name for a in s.attributes], matcher, points)
            for a in s.attributes:
                q = qualified(s.name, a.name)
                self.attrs[q] = a
                self.squares[q] = Square.of(a, c.max_depth)
                self.root[q] = self._new_node(q, "")

    # -- peers and homes (§3.2.1, §3.6) -----------------------------------------------------
    def _add_peer(self, name: str) -> None:
        pid = sha1_id(name)
        # Table 4.1: node_capacity = rand(10, 30), seeded by peer name as in the reference
        cap_rng = random.Random(f"{self.seed}:capacity:{name}")
        self.capacity[pid] = cap_rng.randint(self.config.capacity_min, self.config.capacity_max)
        self.pid_of[name] = pid
        self.ring.add(pid)
        bisect.insort(self._ids, pid)
        self._homes.clear()

    def _new_node(self, qattr: str, bits: str) -> int:
        self.nodes.append(_Node(qattr, bits, sha1_id(identifier(qattr, bits)), set()))
        return len(self.nodes) - 1

    def _home(self, node: _Node) -> int:
        """The live peer numerically closest to the node's key (ties: the smaller id), as
        `PastryRing.closest` (§3.2.1), with no exclusion: the successor or the predecessor."""
        h = self._homes.get(node.key)
        if h is None:
            ids, key, space = self._ids, node.key, self.ring.space
            if not ids:
                raise LookupError("no live peer")
            i = bisect.bisect_left(ids, key)
            succ, pred = ids[i % len(ids)], ids[i - 1]
            ds, dp = abs(succ - key), abs(pred - key)
            ds, dp = min(ds, space - ds), min(dp, space - dp)
            h = self._homes[key] = succ if (ds, succ) < (dp, pred) else pred
        return h

    # -- the growth-only tree (§3.2.2, Program 3.1) ------------------------------------------
    def _leaf_for(self, qattr: str, path: str) -> int:
        n = self.root[qattr]
        while (ch := self.nodes[n].children) is not None:
            n = ch[int(path[len(self.nodes[n].bits)])]
        return n

    def _check_capacity(self, n: int) -> None:
        node = self.nodes[n]
        if node.children is not None or len(node.points) <= self.capacity[self._home(node)]:
            return
        if len(node.bits) >= self.config.max_depth:
            self.overflow += 1
            return
        self.splits += 1
        d = len(node.bits)
        kids = (
            self._new_node(node.qattr, node.bits + "0"),
            self._new_node(node.qattr, node.bits + "1"),
        )
        node.children = kids
        for p in node.points:  # Program 3.1, lines 42-50: each point to its half
            k = kids[int(self.point_path[p][d])]
            self.nodes[k].points.add(p)
            self.leaf_of[p] = k
        node.points = set()
        for k in kids:  # a child checks its own load on creation (reference: _on_transfer_sub)
            self._check_capacity(k)

    # -- ops --------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        st = self.schemas[sub.schema]
        row = st.matcher.n
        st.matcher.add(sub)
        sr = st.rows.append()
        st.rows.cols["start"][sr] = st.points.n
        self.schema_of[sub.id] = sub.schema
        mine: list[int] = []
        for sp in stored_points(sub, seq, self.seed, self.config, self.attrs, self.squares):
            pr = st.points.append()
            cols = st.points.cols
            cols["sub"][pr], cols["base"][pr] = row, st.attrs.index(sp.base)
            cols["seg_lo"][pr] = _exact(sp.segment.lo, f"subscription {sub.id}")
            cols["seg_hi"][pr] = _exact(sp.segment.hi, f"subscription {sub.id}")
            cols["closed"][pr], cols["first"][pr] = sp.segment.closed, sp.segment.index == 0
            cols["seq"][pr], cols["alive"][pr] = seq, True
            g = len(self.point_at)
            self.point_at.append((sub.schema, pr))
            self.point_path.append(sp.path)
            if g == self.leaf_of.size:
                self.leaf_of = np.concatenate([self.leaf_of, np.zeros(g, np.int64)])
            q = qualified(sub.schema, sp.base)
            leaf = self._leaf_for(q, sp.path)  # RndLeafProbe finds this leaf (§3.3)
            self.nodes[leaf].points.add(g)
            self.leaf_of[g] = leaf
            mine.append(g)
            st.rows.cols["count"][sr] += 1
            self._check_capacity(leaf)
        self.points_of[sub.id] = mine

    def _kill(self, g: int) -> None:
        """Point g is no longer stored anywhere: it matches nothing from now on."""
        schema, pr = self.point_at[g]
        self.schemas[schema].points.cols["alive"][pr] = False

    def unsubscribe(self, sub_id: str) -> None:
        self.schemas[self.schema_of[sub_id]].matcher.remove(sub_id)
        for g in self.points_of[sub_id]:  # located as in installation, removed (§3.3.1)
            self.nodes[int(self.leaf_of[g])].points.discard(g)
            self._kill(g)

    def join(self, name: str) -> None:
        self._add_peer(name)  # ready at once (decision V-READY)
        pid = self.pid_of[name]
        for n, node in enumerate(self.nodes):
            if node.children is None and self._home(node) == pid:
                self._check_capacity(n)

    def remove(self, names: list[str], graceful: bool) -> None:
        """Leave or failure (§3.6), as TwoDTreeSystem._remove_peers decides it."""
        gone = {self.pid_of[n] for n in names}
        k = self.config.replication
        moved: list[int] = []
        lost: list[int] = []
        for n, node in enumerate(self.nodes):
            home = self._home(node)
            if home not in gone:
                continue
            moved.append(n)
            replicas = self.ring.k_closest(node.key, k, exclude=frozenset({home}))
            if not (graceful or any(r not in gone for r in replicas)):
                lost.append(n)
        for pid in sorted(gone):
            self.ring.remove(pid)
            self._ids.remove(pid)
        self._homes.clear()
        for st in self.schemas.values():  # their subscriptions end (D-CHURN)
            st.matcher.remove_subscriber(set(names))
        for n in lost:  # all k+1 copies gone: the points are lost
            node = self.nodes[n]
            self.points_lost += len(node.points)
            for g in node.points:
                self._kill(g)
            node.points = set()
        for n in moved:
            self._check_capacity(n)

    def publish(self, event: Event, seq: int) -> None:
        st = self.schemas[event.schema]
        if st.matcher.n == 0:
            return
        # live subscriptions whose original predicates match (§3.3, subscriber side)
        rows = st.matcher.match_rows(event)
        if rows.size == 0:
            return
        values = dict(event.values)
        ev = np.array([float(values[a]) if a in values else np.nan for a in st.attrs])
        pts = st.points.cols
        out = np.empty(st.points.n, np.int64)
        # their points stored before the publish whose segment holds the value (D-SEG), or
        # segment 0 when the event lacks the base attribute (D-LENIENT)
        c = leaf_matches(
            rows, st.rows.cols["start"], st.rows.cols["count"], pts["alive"], pts["seq"],
            pts["base"], pts["seg_lo"], pts["seg_hi"], pts["closed"], pts["first"], ev, seq, out,
        )  # fmt: skip
        if c:
            self.sink.add(event.id, st.matcher, out[:c])

    def result(self) -> ArraySimResult:
        leaves = frozenset((n.qattr, n.bits) for n in self.nodes if n.children is None)
        return ArraySimResult(
            self.records.records, self.points_lost, self.splits, self.overflow, leaves
        )


def _run(sim: ArraySim, trace: Trace) -> None:
    for op in trace.ops:
        if isinstance(op, Publish):
            sim.publish(op.event, op.seq)
        elif isinstance(op, Subscribe):
            sim.subscribe(op.sub, op.seq)
        elif isinstance(op, Unsubscribe):
            sim.unsubscribe(op.sub_id)
        elif isinstance(op, Join):
            sim.join(op.node)
        elif isinstance(op, Leave):
            sim.remove([op.node], graceful=True)
        elif isinstance(op, Fail):
            sim.remove(list(op.nodes), graceful=False)


def run_array_sim(trace: Trace, sim_class: type[ArraySim] = ArraySim) -> ArraySimResult:
    sim = sim_class(trace)
    _run(sim, trace)
    return sim.result()


def array_sim_deliveries(trace: Trace) -> list[Delivery]:
    return run_array_sim(trace).deliveries


def array_sim_fingerprint(trace: Trace) -> Fingerprint:
    """The fingerprint of `array_sim_deliveries`, without a record per delivery (conform --ops)."""
    sink = FingerprintSink()
    _run(ArraySim(trace, sink), trace)
    return sink.result()
