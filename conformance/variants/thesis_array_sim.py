"""ArraySim: an array-based variant of the core simulator (reference/thesis/system.py).

What it keeps of the protocol, and how:
- **Stored points** (thesis §3.3, §3.5): the reference's own rule (`reference.thesis.points`:
  base attribute, range widening, cut-off segments), from the subscription's own generator
  (decision D-POINTS), kept as columns: base attribute, segment bounds and closure, sequence
  number, and the op that removed or lost the point.
- **The growth-only 2d-tree** (§3.2.2, Program 3.1): flat node tables (bits, key, points, first
  child) and `leaf_of` giving each point's leaf; a leaf splits when its load exceeds the
  capacity of the peer that hosts it (Table 4.1: rand(10, 30) per peer, seeded by peer name as
  in the reference), never past `max_depth`.
- **Homes and replication** (§3.2.1, §3.6): a tree node lives on the peer numerically closest
  to hash(identifier) (reference.overlay.pastry.PastryRing); a failure loses a node's points
  when its home and all k replicas fail together, exactly as `TwoDTreeSystem._remove_peers` decides.
  The tree and the peers matter to deliveries only through such a loss, so they are kept when
  the trace has a failure (or the caller asks for the tree: `run_array_sim`), and not otherwise.
- **Matching at the leaves** (§3.4.1, §3.5, decisions D-SEG and D-LENIENT): the events are
  matched once the trace's ops are applied, per schema in one compiled loop
  (`array_kernels.deliveries`), each against the state of its own time: the bucket matcher
  (`bucket_matcher.py`) gives the subscriptions whose original predicates match (what the
  subscriber keeps, §3.3), of which those the subscriber still held (an unsubscribe, or a
  departed subscriber's end, D-CHURN, ends them at its op), and of their points (consecutive
  rows) those stored before the publish (D-OPS), not removed or lost before it, whose segment
  holds the value (or segment 0 when the event lacks the base attribute, lenient).

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
import functools
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from pubsub_spec.conformance.fingerprint import (
    DeliverySink,
    Fingerprint,
    FingerprintSink,
    RecordSink,
)
from pubsub_spec.conformance.variants.array_kernels import deliveries
from pubsub_spec.conformance.variants.bucket_matcher import (
    EXACT,
    NEVER,
    BucketMatcher,
    append_predicates,
    event_row,
    kernel_chunks,
)
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Schema,
    Subscription,
    qualified,
)
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
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.points import point_segments
from pubsub_spec.reference.thesis.space import Square
from pubsub_spec.reference.thesis.tree import identifier


@functools.lru_cache(maxsize=1 << 16)  # pure; the same peer and node names recur trace to trace
def _sha1(text: str) -> int:
    return sha1_id(text)


@dataclass(frozen=True)
class _Chunk:
    """The deliveries of consecutive events of one schema, from one kernel call: event j's
    subscription numbers are rows[off[j] : off[j + 1]]."""

    ev_t: list[int]
    event_ids: list[str]
    matcher: BucketMatcher
    rows: Any
    off: Any


class _SchemaState:
    """One schema's subscriptions, stored points and events, as growable columns (lists, made
    arrays once, when the events are matched)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.attrs = [a.name for a in schema.attributes]
        self.attr_no = {a: k for k, a in enumerate(self.attrs)}
        # per subscription (its row): id, the ordinal of the op that ended it
        # (D-CHURN) and its points, rows [start, start + count) of the point columns
        self.ids: list[str] = []
        self.end: list[int] = []
        self.start: list[int] = []
        self.count: list[int] = []
        # the original predicates (§3.3, kept by the subscriber): row, attribute number, bounds
        self.p_sub: list[int] = []
        self.p_attr: list[int] = []
        self.p_lo: list[float] = []
        self.p_hi: list[float] = []
        # per stored point: base attribute number, segment, sequence number, the ordinal of
        # the op that removed or lost it
        self.base: list[int] = []
        self.seg_lo: list[float] = []
        self.seg_hi: list[float] = []
        self.closed: list[bool] = []
        self.first: list[bool] = []
        self.seq: list[int] = []
        self.death: list[int] = []
        # per event published while the schema had a subscription: id, values (a row of
        # len(attrs), NaN where absent), sequence number, op ordinal
        self.ev_ids: list[str] = []
        self.ev_vals: list[float] = []
        self.ev_seq: list[int] = []
        self.ev_t: list[int] = []


@dataclass(frozen=True)
class ArraySimResult:
    deliveries: list[Delivery]  # in the order made: by event, then by subscription
    points_lost: int
    splits: int
    overflow: int
    leaves: frozenset[tuple[str, str]]


class ArraySim:
    def __init__(self, trace: Trace, sink: DeliverySink | None = None, tree: bool = False) -> None:
        # the tree and the peers decide deliveries only through the points a failure loses
        # (§3.6): kept when the trace has a failure, or when asked (`result`'s tree)
        self.tree = tree or any(isinstance(op, Fail) for op in trace.ops)
        self.config: ThesisConfig = config_of(trace)
        self.matching: MatchMode = trace.matching
        self.seed = trace.seed
        c = self.config
        self.ring = PastryRing(c.id_bits, c.digit_bits, c.leaf_set_size)
        self._ids: list[int] = []  # the ring's peer ids, sorted
        self._homes: dict[int, int] = {}  # node key -> home, until the membership changes
        self._caps: dict[int, int] = {}  # node -> its home's capacity, until the same
        self.capacity: dict[int, int] = {}
        self.pid_of: dict[str, int] = {}
        self.attrs: dict[str, Attribute] = {}
        self.squares: dict[str, Square] = {}
        self.schemas: dict[str, _SchemaState] = {}
        # the tree's nodes (§3.2.2): qualified attribute, bits, key, points (global numbers),
        # first child (-1: a leaf; children are consecutive)
        self.n_qattr: list[str] = []
        self.n_bits: list[str] = []
        self.n_key: list[int] = []
        self.n_points: list[set[int]] = []
        self.n_kids: list[int] = []
        self.root: dict[str, int] = {}
        # global point number -> its schema and row there, its path and its leaf
        self.point_at: list[tuple[_SchemaState, int]] = []
        self.point_path: list[str] = []
        self.leaf_of: list[int] = []
        self.points_of: dict[str, list[int]] = {}
        self.live: dict[str, tuple[_SchemaState, int]] = {}  # subscriber side (§3.3)
        self.held_by: dict[str, list[tuple[_SchemaState, int]]] = {}  # subscriber -> its subs
        self.now = 0  # the ordinal of the op being applied
        self.points_lost = self.splits = self.overflow = 0
        self.records = RecordSink()
        self.sink: DeliverySink = self.records if sink is None else sink
        if self.tree:
            for name in initial_node_names(trace.initial_nodes):
                self._add_peer(name)
        for s in trace.schemas:
            self.schemas[s.name] = _SchemaState(s)
            for a in s.attributes:
                q = qualified(s.name, a.name)
                self.attrs[q] = a
                if self.tree:
                    self.squares[q] = Square.of(a, c.max_depth)
                    self.root[q] = self._new_node(q, "")

    # -- peers and homes (§3.2.1, §3.6) -----------------------------------------------------
    def _add_peer(self, name: str) -> None:
        pid = _sha1(name)
        # Table 4.1: node_capacity = rand(10, 30), seeded by peer name as in the reference
        cap_rng = random.Random(f"{self.seed}:capacity:{name}")
        self.capacity[pid] = cap_rng.randint(self.config.capacity_min, self.config.capacity_max)
        self.pid_of[name] = pid
        self.ring.add(pid)
        bisect.insort(self._ids, pid)
        self._homes.clear()
        self._caps.clear()

    def _new_node(self, qattr: str, bits: str) -> int:
        self.n_qattr.append(qattr)
        self.n_bits.append(bits)
        self.n_key.append(_sha1(identifier(qattr, bits)))
        self.n_points.append(set())
        self.n_kids.append(-1)
        return len(self.n_kids) - 1

    def _home(self, n: int) -> int:
        """The live peer numerically closest to node n's key (ties: the smaller id), as
        `PastryRing.closest` (§3.2.1), with no exclusion: the successor or the predecessor."""
        key = self.n_key[n]
        h = self._homes.get(key)
        if h is None:
            ids, space = self._ids, self.ring.space
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
        kids, bits = self.n_kids, self.n_bits
        while (k := kids[n]) >= 0:
            n = k + (path[len(bits[n])] == "1")
        return n

    def _check_capacity(self, n: int) -> None:
        if self.n_kids[n] >= 0:
            return
        points = self.n_points[n]
        cap = self._caps.get(n)
        if cap is None:
            cap = self._caps[n] = self.capacity[self._home(n)]
        if len(points) <= cap:
            return
        bits = self.n_bits[n]
        d = len(bits)
        if d >= self.config.max_depth:
            self.overflow += 1
            return
        self.splits += 1
        qattr = self.n_qattr[n]
        k0 = self._new_node(qattr, bits + "0")
        self._new_node(qattr, bits + "1")
        self.n_kids[n] = k0
        kid_points = self.n_points[k0], self.n_points[k0 + 1]
        path, leaf_of = self.point_path, self.leaf_of
        for p in points:  # Program 3.1, lines 42-50: each point to its half
            one = path[p][d] == "1"
            kid_points[one].add(p)
            leaf_of[p] = k0 + one
        self.n_points[n] = set()
        for k in (k0, k0 + 1):  # a child checks its own load on creation (reference:
            self._check_capacity(k)  # _on_transfer_sub)

    # -- ops --------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        self.now += 1
        st = self.schemas[sub.schema]
        row = len(st.ids)
        no = st.attr_no
        append_predicates(sub, row, no, st.p_sub, st.p_attr, st.p_lo, st.p_hi)
        st.ids.append(sub.id)
        st.end.append(NEVER)
        self.live[sub.id] = (st, row)
        self.held_by.setdefault(sub.subscriber, []).append((st, row))
        # the reference's stored points (§3.3, §3.5; D-POINTS), without its records
        base, _, _, segments = point_segments(sub, seq, self.seed, self.config, self.attrs)
        st.start.append(len(st.seq))
        st.count.append(len(segments))
        b = no[base]
        for seg in segments:
            lo, hi = float(seg.lo), float(seg.hi)
            if abs(lo) >= EXACT or abs(hi) >= EXACT:
                v = seg.lo if abs(lo) >= EXACT else seg.hi
                raise ValueError(f"subscription {sub.id}: {v} is beyond 2^53, not exact in float64")
            st.base.append(b)
            st.seg_lo.append(lo)
            st.seg_hi.append(hi)
            st.closed.append(seg.closed)
            st.first.append(seg.index == 0)
            st.seq.append(seq)
            st.death.append(NEVER)
        if self.tree:
            self._install(st, row, qualified(sub.schema, base), segments)

    def _install(self, st: _SchemaState, row: int, q: str, segments: list[Segment]) -> None:
        """The points of subscription `row` to their leaves (RndLeafProbe finds the leaf whose
        zone holds the point, §3.3), each leaf then checking its load (Program 3.1)."""
        square = self.squares[q]
        mine = self.points_of[st.ids[row]] = []
        for j, seg in enumerate(segments):
            g = len(self.point_at)
            path = square.point_path(seg.lo, seg.hi)  # §3.2.1
            self.point_at.append((st, st.start[row] + j))
            self.point_path.append(path)
            leaf = self._leaf_for(q, path)
            self.n_points[leaf].add(g)
            self.leaf_of.append(leaf)
            mine.append(g)
            self._check_capacity(leaf)

    def _kill(self, g: int) -> None:
        """Point g is no longer stored anywhere: it matches no later event."""
        st, pr = self.point_at[g]
        if st.death[pr] == NEVER:  # (a lost point's subscription may still be removed)
            st.death[pr] = self.now

    def unsubscribe(self, sub_id: str) -> None:
        self.now += 1
        st, row = self.live.pop(sub_id)
        st.end[row] = self.now
        for pr in range(st.start[row], st.start[row] + st.count[row]):
            if st.death[pr] == NEVER:  # (a lost point's subscription may still be removed)
                st.death[pr] = self.now
        if self.tree:  # located as in installation, removed (§3.3.1)
            for g in self.points_of[sub_id]:
                self.n_points[self.leaf_of[g]].discard(g)

    def join(self, name: str) -> None:
        self.now += 1
        if not self.tree:
            return
        self._add_peer(name)  # ready at once (decision V-READY)
        pid = self.pid_of[name]
        kids = self.n_kids
        n = 0
        while n < len(kids):  # nodes split off meanwhile included
            if kids[n] < 0 and self._home(n) == pid:
                self._check_capacity(n)
            n += 1

    def remove(self, names: list[str], graceful: bool) -> None:
        """Leave or failure (§3.6), as TwoDTreeSystem._remove_peers decides it."""
        self.now += 1
        for name in names:  # their subscriptions end (D-CHURN)
            for st, row in self.held_by.pop(name, ()):
                if st.end[row] == NEVER:
                    st.end[row] = self.now
                    del self.live[st.ids[row]]
        if not self.tree:
            return
        gone = {self.pid_of[n] for n in names}
        k = self.config.replication
        moved: list[int] = []
        lost: list[int] = []
        kids = self.n_kids
        for n in range(len(kids)):
            if kids[n] >= 0:  # an inner node holds no point (they went to its children)
                continue
            home = self._home(n)
            if home not in gone:
                continue
            moved.append(n)
            replicas = self.ring.k_closest(self.n_key[n], k, exclude=frozenset({home}))
            if not (graceful or any(r not in gone for r in replicas)):
                lost.append(n)
        for pid in sorted(gone):
            self.ring.remove(pid)
            self._ids.remove(pid)
        self._homes.clear()
        self._caps.clear()
        for n in lost:  # all k+1 copies gone: the points are lost
            points = self.n_points[n]
            self.points_lost += len(points)
            for g in points:
                self._kill(g)
            self.n_points[n] = set()
        for n in moved:
            self._check_capacity(n)

    def publish(self, event: Event, seq: int) -> None:
        self.now += 1
        st = self.schemas[event.schema]
        if not st.ids:
            return
        st.ev_ids.append(event.id)
        st.ev_vals.extend(event_row(event, st.attr_no, len(st.attrs)))
        st.ev_seq.append(seq)
        st.ev_t.append(self.now)

    def finish(self) -> None:
        """Match the events published so far and give their deliveries to the sink, by event
        (in the order published), then by subscription."""
        chunks: list[_Chunk] = []
        for st in self.schemas.values():
            if st.ev_ids:
                chunks.extend(self._match(st))
                st.ev_ids, st.ev_vals, st.ev_seq, st.ev_t = [], [], [], []
        if isinstance(self.sink, FingerprintSink):  # a sum: the order does not matter
            for ch in chunks:
                self.sink.add_many(ch.event_ids, ch.matcher, ch.rows, np.diff(ch.off))
            return
        made: list[tuple[int, str, BucketMatcher, Any]] = []
        for ch in chunks:
            bounds = ch.off.tolist()
            for e, event_id in enumerate(ch.event_ids):
                a, b = bounds[e], bounds[e + 1]
                if b > a:
                    made.append((ch.ev_t[e], event_id, ch.matcher, ch.rows[a:b]))
        if len(self.schemas) > 1:
            made.sort(key=lambda m: m[0])
        for _, event_id, table, rows in made:
            self.sink.add(event_id, table, rows)

    def _match(self, st: _SchemaState) -> list[_Chunk]:
        n = len(st.ids)
        # every subscription of the trace, none removed: the kernel applies the ends in time
        matcher = BucketMatcher(st.schema, self.matching)
        matcher.add_columns(st.ids, st.p_sub, st.p_attr, st.p_lo, st.p_hi)
        index = matcher.kernel_index()
        ne = len(st.ev_ids)
        vals = np.array(st.ev_vals, np.float64).reshape(ne, len(st.attrs))
        ev_seq, ev_t = np.array(st.ev_seq, np.int64), np.array(st.ev_t, np.int64)
        cols = (
            np.array(st.end, np.int64), np.array(st.start, np.int64),
            np.array(st.count, np.int64), np.array(st.death, np.int64),
            np.array(st.seq, np.int64), np.array(st.base, np.int64),
            np.array(st.seg_lo, np.float64), np.array(st.seg_hi, np.float64),
            np.array(st.closed, np.bool_), np.array(st.first, np.bool_),
        )  # fmt: skip
        unm = np.empty(index[-1].size, np.uint64)
        cand = np.empty(max(n, 1), np.int64)
        mask = np.empty(0, np.bool_)
        strict = self.matching == "strict"
        head, tail = (vals, ev_seq, ev_t), (strict, index, unm, n, cand, mask, *cols)
        return [
            _Chunk(st.ev_t[e0:e1], st.ev_ids[e0:e1], matcher, rows, bounds)
            for e0, e1, rows, bounds in kernel_chunks(deliveries, head, tail, ne)
        ]

    def result(self) -> ArraySimResult:
        leaves = frozenset(
            (self.n_qattr[n], self.n_bits[n]) for n, k in enumerate(self.n_kids) if k < 0
        )
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
    sim.finish()


def run_array_sim(trace: Trace, sim_class: type[ArraySim] = ArraySim) -> ArraySimResult:
    sim = sim_class(trace, tree=True)
    _run(sim, trace)
    return sim.result()


def array_sim_deliveries(trace: Trace) -> list[Delivery]:
    sim = ArraySim(trace)
    _run(sim, trace)
    return sim.records.records


def array_sim_fingerprint(trace: Trace) -> Fingerprint:
    """The fingerprint of `array_sim_deliveries`, without a record per delivery (conform --ops)."""
    sink = FingerprintSink()
    _run(ArraySim(trace, sink), trace)
    return sink.result()
