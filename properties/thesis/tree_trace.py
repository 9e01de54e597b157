"""Trace validation of the thesis system's 2d-tree against spec/thesis/TwoDTree.tla.

`TreeTraceSystem` observes a run of the reference (it draws nothing, sends nothing, changes no
state the system reads: tests/test_trace_validation.py compares event-log hashes) and records
the run as a sequence of states of TwoDTree.tla; a generated module (`tree_module`) lets
tla-checker decide whether the sequence is a behaviour of `Init /\\ [][Next]_vars` with the
reference's constants (Hold = TRUE, EarlyUpdate = FALSE, Fifo = FALSE, Inherit = TRUE).

Runs that fit the map (`tree_trace`, `tree_race_trace` build them): one schema with one int
attribute `b` in 0..2^K (values 0..2^K - 1 only), max_depth D = 3 (K = 2, so a grid cell is
one value pair and the spec's R = D + 1 = 4 bits are the reference's whole point path), every
capacity = Cap, RndLeafProbe level 0 (the spec guesses 0 or D), RndRegionProbe with p = 0 (all
overlapping nodes of one level, the spec's Publish), unicast probes and deliveries, no
widening, cut-off, unsubscription or churn. Abstraction map (docs/tla.md, "Trace validation"):

- a tree node with bit string b is <<len(b), int(b, 2)>>; subscription i (trace order) is i,
  event j is j; Pt[i] = int(path, 2) of its stored point; Region[j] = the cells of the grid
  overlapping the event's target area (exact here: cell = value);
- exists = ever = the hosted tree nodes; lnrt[n] = the records of n's LeafNodeRoutingTable
  ({} for a leaf); store[n] = the subscriptions of n's points; seen[n] = n's processed events;
  pending[n] = n.splitting; held[n] / heldIns[n] = the events / subscriptions of the ProbePubs
  / ProbeSubs and InsertSubs n holds;
- msgs: every message in flight: ProbeSub (also its "found" reply to the subscriber) and
  InsertSub to target t = Msg("insert", t, NoNode, i); ProbePub = Msg("probe", t, NoNode, j);
  TransferSub = Msg("transfer", child, parent, 0, its points' subscriptions, its events);
  its confirmation = Msg("created", parent, child); LeafUpdate(split x, target a) =
  Msg("update", a, x); a LeafUpdate lost by the network is in flight for one recorded state,
  then lost (LoseUpdate); held messages being replayed are in flight until handled;
  EventDeliveries are not modelled;
- installed / inflight: subscriptions stored / not yet stored; published: events published;
  activeAt[j] = installed when j was published; dcount[<<j, i>>] = min(2, number of leaf matches
  that delivered j to i), counted only for i in activeAt[j] (a subscription subscribed before j
  but stored after it is delivered by the reference's contract, docs/design.md#active, but is not
  active in the spec: those deliveries are outside the map).

A state is recorded after each op, after each handled message, before each split and before
each replayed message (the reference does a store and the split it triggers, or a confirmation
and the replays it releases, in one handler; the spec in several steps); consecutive equal
states are one.

Twins: the spec's messages form a set, the reference's a multiset (two sibling nodes' probes
jumping back to one node are two copies). The receipt of a copy while a live copy of the same
abstract message is pending (this one or another) is the spec's receipt, and the other pending
copies become twins: left out of `msgs` and `held`; a message sent while a twin is handled is a
twin too; the receipt of a twin with no live copy pending must leave the abstract state
unchanged (the dedup of §3.4.1 discards it), or the run is not mapped (`problem`: counted, not
validated), as is a run with an unsubscription.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from pubsub_spec.properties.tracecheck import TlaValue, Validation, tla_literal, validate
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Timing, Trace
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig
from pubsub_spec.reference.thesis.messages import (
    EventDelivery,
    InsertSub,
    LeafUpdate,
    ProbePub,
    ProbeSub,
    TransferSub,
)
from pubsub_spec.reference.thesis.run import run_and_compare, run_trace
from pubsub_spec.reference.thesis.system import Arrival, Item, Peer, TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import TreeNode

D = 3  # max_depth of the mapped runs
K = 2  # grid bits per axis: (D + 1) // 2
TOP = 1 << K  # the attribute's domain is 0..TOP, values 0..TOP - 1
VARIABLES = (
    "exists", "lnrt", "store", "seen", "pending", "held", "msgs", "installed", "published",
    "activeAt", "dcount", "ever", "inflight", "heldIns",
)  # fmt: skip
NodeId = tuple[int, int]
NO_NODE: NodeId = (D + 2, 0)  # TwoDTree's NoNode = <<R + 1, 0>>


class NotMapped(Exception):
    """The run leaves the abstraction map (module doc)."""


def node_id(bits: str) -> NodeId:
    return (len(bits), int(bits, 2) if bits else 0)


class Rec(Mapping[str, TlaValue]):
    """A hashable TLA+ record (a message is an element of the set `msgs`)."""

    def __init__(self, **fields: TlaValue) -> None:
        self._items = tuple(fields.items())

    def __getitem__(self, key: str) -> TlaValue:
        return dict(self._items)[key]

    def __iter__(self) -> Iterator[str]:
        return iter(k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rec) and self._items == other._items


def _msg(
    t: str,
    to: NodeId,
    frm: NodeId,
    e: int,
    subs: frozenset[int] = frozenset(),
    seen: frozenset[int] = frozenset(),
) -> TlaValue:
    return Rec(t=t, to=to, **{"from": frm}, e=e, subs=subs, seen=seen)


class _RecordingEngine(Engine[Item]):
    def __init__(self, on_schedule: Callable[[Item], None]) -> None:
        super().__init__()
        self._on_schedule = on_schedule

    def schedule(self, at: float, item: Item) -> None:
        super().schedule(at, item)
        self._on_schedule(item)


class TreeTraceSystem(TwoDTreeSystem):
    """The reference with recording hooks (module doc); subclasses are the mutants."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        assert len(self.engine) == 0
        self.engine = _RecordingEngine(self._tv_scheduled)
        self.tv_states: list[dict[str, TlaValue]] = []
        self.tv_subs: dict[str, int] = {}
        self.tv_events: dict[str, int] = {}
        self.tv_active: dict[int, frozenset[int]] = {}
        self.tv_dcount: dict[tuple[int, int], int] = defaultdict(int)
        self.tv_problem = ""
        self._tv_flight: dict[int, tuple[Arrival, NodeId]] = {}
        self._tv_replay: list[object] = []
        self._tv_lost: list[TlaValue] = []
        self._tv_ctx: NodeId = NO_NODE
        self._tv_match: int | None = None
        # twins (module doc): message objects whose copy was received first, kept alive so
        # that their ids are not reused; `_tv_quiet` while one of them is handled
        self._tv_twins: dict[int, object] = {}
        self._tv_quiet = False
        self.tv_record()  # Init

    # -- observation ------------------------------------------------------------------------
    def _tv_scheduled(self, item: Item) -> None:
        if isinstance(item, Arrival):
            frm = self._tv_ctx if isinstance(item.msg, TransferSub) else NO_NODE
            self._tv_flight[id(item)] = (item, frm)
            if self._tv_quiet:  # sent while handling a twin: a twin too
                self._tv_twins[id(item.msg)] = item.msg

    def _tv_abstract(self, msg: object, frm: NodeId) -> TlaValue | None:
        if isinstance(msg, ProbeSub):
            if msg.remove:
                raise NotMapped("unsubscription")
            return _msg("insert", node_id(msg.target), NO_NODE, self.tv_subs[msg.point.sub.id])
        if isinstance(msg, InsertSub):
            return _msg("insert", node_id(msg.target), NO_NODE, self.tv_subs[msg.point.sub.id])
        if isinstance(msg, ProbePub):
            return _msg("probe", node_id(msg.target), NO_NODE, self.tv_events[msg.event.id])
        if isinstance(msg, TransferSub):
            if msg.created:
                return _msg("created", node_id(msg.target), frm, 0)
            subs = frozenset(self.tv_subs[p.sub.id] for p in msg.points)
            seen = frozenset(self.tv_events[e] for e in msg.seen)
            return _msg("transfer", node_id(msg.target), node_id(msg.target[:-1]), 0, subs, seen)
        if isinstance(msg, LeafUpdate):
            return _msg("update", node_id(msg.target), node_id(msg.split), 0)
        if isinstance(msg, EventDelivery):
            return None
        raise NotMapped(f"message {type(msg).__name__}")

    def _tv_pending(self) -> list[tuple[object, NodeId]]:
        """Every message object in flight or being replayed, with its sender."""
        return [(a.msg, f) for a, f in self._tv_flight.values()] + [
            (m, NO_NODE) for m in self._tv_replay
        ]

    def _tv_msgs(self) -> list[TlaValue]:
        out = [
            self._tv_abstract(m, f) for m, f in self._tv_pending() if id(m) not in self._tv_twins
        ]
        return [m for m in out if m is not None] + self._tv_lost

    def _tv_fn(self, nodes: list[TreeNode], f: Callable[[TreeNode], TlaValue]) -> TlaValue:
        return frozenset((node_id(n.bits), f(n)) for n in nodes)

    def tv_record(self, quiet: bool = False) -> None:
        if self.tv_problem:
            return
        try:
            self._tv_record(quiet)
        except NotMapped as exc:
            self.tv_problem = str(exc)

    def _tv_record(self, quiet: bool = False) -> None:
        nodes = self.tree_nodes()
        internal = [n for n in nodes if n.lnrt is not None]
        sub_idx, ev_idx = self.tv_subs, self.tv_events
        installed = frozenset(i for s, i in sub_idx.items() if self.subs[s].install.pending == 0)
        exists = frozenset(node_id(n.bits) for n in nodes)

        def held(n: TreeNode, ins: bool) -> frozenset[int]:
            out: set[int] = set()
            for m in n.held:
                if id(m) in self._tv_twins:
                    continue
                if isinstance(m, ProbePub) and not ins:
                    out.add(ev_idx[m.event.id])
                elif isinstance(m, ProbeSub | InsertSub) and ins:
                    out.add(sub_idx[m.point.sub.id])
            return frozenset(out)

        state: dict[str, TlaValue] = {
            "exists": exists,
            "lnrt": self._tv_fn(internal, lambda n: frozenset(node_id(r) for r in (n.lnrt or ()))),
            "store": self._tv_fn(
                [n for n in nodes if n.points],
                lambda n: frozenset(sub_idx[p.sub.id] for p in n.points.values()),
            ),
            "seen": self._tv_fn(
                [n for n in nodes if n.seen], lambda n: frozenset(ev_idx[e] for e in n.seen)
            ),
            "pending": self._tv_fn([n for n in nodes if n.splitting], lambda n: n.splitting),
            "held": self._tv_fn([n for n in nodes if held(n, False)], lambda n: held(n, False)),
            "heldIns": self._tv_fn([n for n in nodes if held(n, True)], lambda n: held(n, True)),
            "msgs": frozenset(self._tv_msgs()),
            "installed": installed,
            "published": frozenset(self.tv_active),
            "activeAt": frozenset(self.tv_active.items()),
            "dcount": frozenset(((j, i), min(2, c)) for (j, i), c in self.tv_dcount.items() if c),
            "ever": exists,
            "inflight": frozenset(sub_idx[s] for s in sub_idx if self.subs[s].install.pending > 0)
            - installed,
        }
        if not self.tv_states or self.tv_states[-1] != state:
            if quiet:
                raise NotMapped("a twin message changed the abstract state")
            self.tv_states.append(state)
        if self._tv_lost:  # LoseUpdate: in flight for one recorded state, then gone
            self._tv_lost = []
            self._tv_record()

    # -- hooks ------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        self.tv_subs.setdefault(sub.id, len(self.tv_subs) + 1)
        super().subscribe(sub, seq)
        self.tv_record()

    def publish(self, event: Event, seq: int) -> None:
        j = self.tv_events.setdefault(event.id, len(self.tv_events) + 1)
        self.tv_active[j] = frozenset(
            i for s, i in self.tv_subs.items() if self.subs[s].install.pending == 0
        )
        super().publish(event, seq)
        self.tv_record()

    def _dispatch(self, item: Item) -> str:
        quiet = False
        if isinstance(item, Arrival):
            self._tv_flight.pop(id(item), None)
            quiet = self._tv_receive(item.msg)
        outer, self._tv_quiet = self._tv_quiet, quiet
        try:
            out = super()._dispatch(item)
        finally:
            self._tv_quiet = outer
        self.tv_record(quiet)
        return out

    def _tv_receive(self, msg: object) -> bool:
        """Twins (module doc): the receipt of a copy while a live copy of the same abstract
        message is pending (this one or another) is the spec's receipt, and the other pending
        copies become twins; the receipt of a twin with no live copy pending must leave the
        abstract state unchanged (True: check it). TransferSubs and confirmations are unique
        (a node splits once) and never twins."""
        if self.tv_problem or isinstance(msg, TransferSub):
            return False
        try:
            mine = self._tv_abstract(msg, NO_NODE)
        except NotMapped as exc:
            self.tv_problem = str(exc)
            return False
        if mine is None:
            return False
        same = [m for m, _ in self._tv_pending() if self._tv_abstract(m, NO_NODE) == mine]
        live = id(msg) not in self._tv_twins or any(id(m) not in self._tv_twins for m in same)
        if not live:
            return True
        self._tv_twins.pop(id(msg), None)
        for m in same:
            self._tv_twins[id(m)] = m
        return False

    def _handle(self, peer: Peer, msg: object) -> None:
        if any(m is msg for m in self._tv_replay):  # a held message replayed (D-SPLIT)
            self.tv_record()
            self._tv_replay = [m for m in self._tv_replay if m is not msg]
            quiet = self._tv_receive(msg)
            outer, self._tv_quiet = self._tv_quiet, quiet
            try:
                super()._handle(peer, msg)  # type: ignore[arg-type]
            finally:
                self._tv_quiet = outer
            if quiet:
                self.tv_record(quiet=True)
            return
        super()._handle(peer, msg)  # type: ignore[arg-type]

    def _on_child_created(self, peer: Peer, msg: TransferSub) -> None:
        node = self._node(peer, msg.qattr, msg.target)
        if node is not None and node.splitting == 1:
            self._tv_replay = list(node.held)
        super()._on_child_created(peer, msg)

    def _on_transfer_sub(self, peer: Peer, msg: TransferSub) -> None:
        ctx, self._tv_ctx = self._tv_ctx, node_id(msg.target)
        try:
            super()._on_transfer_sub(peer, msg)
        finally:
            self._tv_ctx = ctx

    def _split(self, peer: Peer, node: TreeNode) -> None:
        self.tv_record()  # the store that overflowed, then Split(n)
        ctx, self._tv_ctx = self._tv_ctx, NO_NODE
        try:
            super()._split(peer, node)
        finally:
            self._tv_ctx = ctx

    def send_key(self, src: Peer, key: int, msg: object) -> None:
        lost = self.metrics.leaf_updates_lost
        super().send_key(src, key, msg)  # type: ignore[arg-type]
        if self.metrics.leaf_updates_lost > lost:
            a = self._tv_abstract(msg, NO_NODE)
            assert a is not None
            self._tv_lost.append(a)

    def _match_and_deliver(self, peer: Peer, node: TreeNode, event: Event) -> None:
        self._tv_match = self.tv_events[event.id]
        try:
            super()._match_and_deliver(peer, node, event)
        finally:
            self._tv_match = None

    def send_direct(self, src: Peer, dst_pid: int, msg: object, key: int | None = None) -> None:
        j = self._tv_match
        if j is not None and isinstance(msg, EventDelivery):
            for _, ids in msg.targets:
                for sid in ids:
                    i = self.tv_subs[sid]
                    if i in self.tv_active[j]:
                        self.tv_dcount[(j, i)] += 1
        super().send_direct(src, dst_pid, msg, key)  # type: ignore[arg-type]


class KeepSplitRecord(TreeTraceSystem):
    """MUTANT (a cost-only slip; TwoDTree.tla's Bug = "KeepSplitRecord"): a
    LeafNodeUpdateMessage adds the split node's children to the table but keeps the split node's
    record (Program 3.1, line 63 read as "add" rather than "replace"). Probes then reach the
    children twice, once directly and once through the split node, and the second copy is
    discarded by the per-event dedup (§3.4.1): every delivery is right, the oracle sees
    nothing; the spec's RecvUpdate replaces the record, so validation rejects the step."""

    def _on_leaf_update(self, peer: Peer, msg: LeafUpdate) -> None:
        node = self._node(peer, msg.qattr, msg.target)
        if node is not None and node.lnrt is not None and msg.split in set(node.lnrt):
            node.lnrt._records.update((msg.split + "0", msg.split + "1"))
            if node.bits:
                up = node.bits[:-1]
                self.send_key(peer, self._key(msg.qattr, up), LeafUpdate(msg.qattr, msg.split, up))
            return
        super()._on_leaf_update(peer, msg)


class SkipLeafUpdate(TreeTraceSystem):
    """MUTANT: a split node never sends its LeafNodeUpdateMessage after the confirmations
    (Program 3.1, lines 54-55 skipped). Ancestors' tables stay coarse, which costs hops but no
    delivery (§3.2.2: correctness never depends on the tables' freshness); the spec's
    RecvCreated sends the update, so validation rejects the confirmation step."""

    def send_key(self, src: Peer, key: int, msg: object) -> None:
        if isinstance(msg, LeafUpdate) and msg.target == msg.split[:-1]:
            return
        super().send_key(src, key, msg)


# -- workloads ------------------------------------------------------------------------------
SCHEMA = Schema("s", (Attribute("b", "int", 0, TOP),))


def tree_trace(seed: int, subs: int = 6, events: int = 6, race: bool = False) -> Trace:
    """A small generated workload inside the map (module doc). With `race`, ops 1 ms apart,
    subscriptions and publications shuffled, leaves of capacity 1 that keep splitting while
    probes of level 1-3 are in flight (held probes, jump-backs, twins, dedup); LeafUpdates
    delayed and sometimes lost. Every draw from `random.Random(f"{seed}:tv-tree:{race}")`."""
    rng = random.Random(f"{seed}:tv-tree:{race}")
    nodes = rng.choice([4, 12])
    kinds = ["s"] * subs + ["p"] * events
    if race:
        rng.shuffle(kinds)
    ops: list[Op] = []
    for i, k in enumerate(kinds, start=1):
        who = f"n{rng.randrange(nodes)}"
        if k == "s":
            lo = rng.randrange(TOP)
            hi = rng.randint(lo, TOP - 1)
            ops.append(Subscribe(i, Subscription(f"s{i}", who, "s", (Predicate("b", lo, hi),))))
        else:
            v = rng.randrange(TOP)
            ops.append(Publish(i, Event(f"e{i}", who, "s", (("b", v),))))
    cap = 1 if race else rng.choice([1, 2])
    cfg = ThesisConfig(
        capacity_min=cap,
        capacity_max=cap,
        max_depth=D,
        sub_probe_max_level=0,
        pub_min_level=0,
        pub_max_level=rng.choice([1, 2, 3] if race else [0, 0, 1, 2, 3]),
        pub_p=0.0,
        delivery="unicast",
        probe="unicast",
        leaf_update_delay_ms=300.0 if race else 0.0,
        leaf_update_loss=0.3 if race else 0.0,
    )
    timing = Timing(
        sub_interarrival_ms=1.0 if race else 50.0, pub_interarrival_ms=1.0 if race else 50.0
    )
    return Trace(
        (SCHEMA,),
        tuple(ops),
        initial_nodes=nodes,
        seed=seed,
        timing=timing,
        sections=((SECTION, cfg),),
        generator="tv-tree-race" if race else "tv-tree",
    )


# -- the generated module -------------------------------------------------------------------
@dataclass(frozen=True)
class TreeRun:
    trace: Trace
    states: list[dict[str, TlaValue]]
    pt: tuple[int, ...]
    region: tuple[frozenset[int], ...]
    cap: int
    problem: str  # "" when the run is inside the map


def cell_of(x: int, y: int) -> int:
    """The spec's cell of the grid cell (x, y): x and y bits interleaved, x first (thesis
    §3.2.1: depth 0 splits on x), computed here, not by reference/thesis/space.py."""
    out = 0
    for b in range(K - 1, -1, -1):
        out = out << 2 | (x >> b & 1) << 1 | (y >> b & 1)
    return out


def region_of(v: int) -> frozenset[int]:
    """The cells of the target area [min, v] x [v, max] (thesis §3.2, Fig. 3.1): x <= v <= y."""
    return frozenset(cell_of(x, y) for x in range(v + 1) for y in range(v, TOP))


def record_tree_run(trace: Trace, system_class: type[TreeTraceSystem] = TreeTraceSystem) -> TreeRun:
    """Run the trace on the observing system and apply the abstraction map (module doc)."""
    result = run_trace(trace, system_class=system_class)
    system = result.system
    assert isinstance(system, TreeTraceSystem)
    cfg = system.config
    problem = system.tv_problem
    if cfg.capacity_min != cfg.capacity_max or cfg.max_depth != D or cfg.pub_p != 0.0:
        problem = problem or "configuration outside the map"
    subs = sorted(system.tv_subs.items(), key=lambda kv: kv[1])
    preds = [system.subs[s].original.predicate("b") for s, _ in subs]
    pt = tuple(cell_of(int(p.lo), int(p.hi)) for p in preds if p is not None)
    events = {op.event.id: op.event for op in trace.ops if isinstance(op, Publish)}
    evs = sorted(system.tv_events.items(), key=lambda kv: kv[1])
    region = tuple(region_of(int(events[e].value("b") or 0)) for e, _ in evs)
    return TreeRun(trace, system.tv_states, pt, region, cfg.capacity_min, problem)


def tree_module(run: TreeRun, name: str = "TVTwoDTree") -> tuple[str, str, int]:
    """The generated module, its cfg and the number of recorded states."""
    # the states still to match are a variable: a step reads the head of a value, instead of
    # evaluating the whole literal sequence again (quadratic in the run's length)
    rows = ",\n    ".join(tla_literal(s) for s in run.states)

    def eq(prime: str) -> str:
        parts = []
        for v in VARIABLES:
            r = f"r.{v}"
            if v in ("lnrt", "store", "seen", "held", "heldIns"):
                r = f"TVFn({r}, {{}})"
            elif v == "pending":
                r = f"TVFn({r}, 0)"
            elif v == "dcount":
                r = f"TVCount({r})"
            elif v == "activeAt":
                r = f"TVAt({r})"
            parts.append(f"{v}{prime} = {r}")
        return "\n    /\\ ".join(parts)

    module = f"""---- MODULE {name} ----
EXTENDS TwoDTree, Sequences
VARIABLE tvRest
TVPt == {tla_literal(run.pt)}
TVRegion == {tla_literal(run.region)}
TVFn(S, dflt) == [n \\in AllNodes |->
    IF \\E q \\in S : q[1] = n THEN (CHOOSE q \\in S : q[1] = n)[2] ELSE dflt]
TVCount(S) == [p \\in Events \\X Subs |->
    IF \\E q \\in S : q[1] = p THEN (CHOOSE q \\in S : q[1] = p)[2] ELSE 0]
TVAt(S) == [e \\in Events |->
    IF \\E q \\in S : q[1] = e THEN (CHOOSE q \\in S : q[1] = e)[2] ELSE {{}}]
TVStates == <<
    {rows}
    >>
TVIs(r) ==
    /\\ {eq("")}
TVIsNext(r) ==
    /\\ {eq("'")}
TVInit == tvRest = Tail(TVStates) /\\ Init /\\ TVIs(TVStates[1])
TVStep == tvRest # <<>> /\\ Next /\\ TVIsNext(Head(tvRest)) /\\ tvRest' = Tail(tvRest)
TVEnd == tvRest = <<>> /\\ UNCHANGED <<tvRest, {", ".join(VARIABLES)}>>
TVNext == TVStep \\/ TVEnd
====
"""
    cfg = f"""CONSTANTS
    Bug = "none"
    D = {D}
    Cap = {run.cap}
    NSubs = {len(run.pt)}
    NEvents = {len(run.region)}
    Hold = TRUE
    EarlyUpdate = FALSE
    Fifo = FALSE
    Inherit = TRUE
    NoCap = FALSE
    Merge = FALSE
    Pt <- TVPt
    Region <- TVRegion
INIT TVInit
NEXT TVNext
"""
    return module, cfg, len(run.states)


def validate_tree(run: TreeRun, name: str = "TVTwoDTree") -> Validation | None:
    """Validate one recorded run against TwoDTree.tla; None when the run is outside the map."""
    if run.problem:
        return None
    module, cfg, n = tree_module(run, name)
    return validate("thesis", name, module, cfg, expect_states=n, max_depth=n + 1)


def oracle_agrees_tree(trace: Trace, system_class: type[TwoDTreeSystem]) -> bool:
    """The delivery oracle alone: the run's deliveries are exactly the expected ones."""
    _, comparison = run_and_compare(trace, system_class=system_class)
    return comparison.agree
