"""Trace validation of Tam et al.'s Scribe trees against spec/tam/Scribe.tla.

`TamTraceSystem` observes a run of the reference `TamSystem` (it draws nothing, sends nothing
and changes no state the system reads: tests/test_trace_validation_tam.py compares event-log
hashes): every Scribe message sent is noted with its sender, a publication is noted when it
reaches its group's root, and the state of every group is recorded after each op and after
each handled message. Scribe.tla models one group (one key), so each group with a member is a
run of its own, validated by its own generated module (constants fixed to the run's; Fifo =
TRUE, Discard = TRUE, Repair = "rebuild", Bug = "none"; no arrival and no failure).

Runs inside the map (`tam_trace` builds them): one schema with one int attribute `k` in 0..2
(one key per value, Tam et al. §3.5), subscriptions on one value or two, publications with a
value of `k`, a small Pastry leaf set so that routes take several hops and merge, no churn, and
a peer joins a group at most once (the spec's `subd`). Abstraction map (docs/tla.md, "Trace
validation"):

- peers: the group's home and every peer on the route of a member (Pastry's `next_hop` toward
  the key) get spec ids such that the spec's routing (`NextHop(p)`: the largest live id <=
  p div 2, else the home) is Pastry's on those peers: the home is 1, the others are numbered
  in breadth-first order of the route tree and spaced so that a peer's children are exactly
  the peers whose ids lie in [2 x, 2 x'), x' the next id after x (checked, or not mapped);
  publications of the group in the order they reach the root -> 1..Pubs;
- `alive` = every mapped peer, `down` = {}, `epoch` = `fails` = 0, `dirty` = FALSE; `inT[p]` =
  p holds state for the group, `par[p]` = its parent (0 at the root), `ch[p]` = its
  children, `mem[p]` = its member flag; `subd` = the peers whose member join has been made;
- `msgs`: ScribeJoin / ScribeLeave sent by p to q -> [t |-> "join" / "leave", s |-> p,
  d |-> q, e |-> 0, ep |-> 0, k |-> its place on the channel (1 + the largest place of the
  channel's control messages in flight)]; ScribeMulticast of publication e from p to c ->
  [t |-> "mc", s |-> p, d |-> c, e |-> e, ep |-> 0, k |-> 0]; ScribePublish hops on the
  route to the root are not modelled (the spec's publication enters at the root);
- `published`: the publications that reached the root; `activeAt[e]` = the members then;
  `clean[e]` = no JOIN or LEAVE of the group in flight then (the spec's `Repaired`);
  `got[e][p]` = min(2, the Scribe deliveries of e at p).
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass

from pubsub_spec.properties.thesis.tree_trace import Rec
from pubsub_spec.properties.tracecheck import (
    RecordingEngine,
    TlaValue,
    Validation,
    rest_module,
    validate,
)
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Timing, Trace, Unsubscribe
from pubsub_spec.reference.overlay.pastry import PastryRing
from pubsub_spec.reference.overlay.scribe import (
    Scribe,
    ScribeJoin,
    ScribeLeave,
    ScribeMessage,
    ScribeMulticast,
    ScribePublish,
)
from pubsub_spec.reference.sim.run import run_and_compare, run_trace
from pubsub_spec.reference.tam.config import SECTION, TamConfig
from pubsub_spec.reference.tam.system import Hop, Item, TamSystem

SCHEMA = Schema("kv", (Attribute("k", "int", 0, 2),))
VARIABLES = (
    "alive", "down", "inT", "par", "ch", "mem", "subd", "msgs", "epoch", "dirty", "fails",
    "got", "published", "activeAt", "clean",
)  # fmt: skip
Ctl = tuple[str, int, int, int]  # type, sender, receiver, place on the channel
Mc = tuple[str, int, int, str]  # "mc", sender, receiver, event id


class NotMapped(Exception):
    """The run leaves the abstraction map (module doc)."""


@dataclass(frozen=True)
class RawState:
    """One group's state with Pastry ids (mapped to spec ids once the run is over)."""

    inT: frozenset[int]
    par: tuple[tuple[int, int], ...]  # (peer, parent) for the peers with a parent
    ch: tuple[tuple[int, frozenset[int]], ...]
    mem: frozenset[int]
    subd: frozenset[int]
    msgs: frozenset[Ctl | Mc]
    got: tuple[tuple[tuple[str, int], int], ...]
    published: tuple[str, ...]  # in the order they reached the root
    active_at: tuple[tuple[str, frozenset[int]], ...]
    clean: tuple[tuple[str, bool], ...]


class _GroupLog:
    def __init__(self) -> None:
        self.published: list[str] = []
        self.active_at: dict[str, frozenset[int]] = {}
        self.clean: dict[str, bool] = {}
        self.got: Counter[tuple[str, int]] = Counter()
        self.subd: set[int] = set()
        self.states: list[RawState] = []
        self.problem = ""


class _TraceScribe(Scribe[Event]):
    """Scribe noting, for the host, a publication reaching its group's root and a member's
    join (the spec's `Publish` and `Subscribe`); its behaviour is Scribe's."""

    tv_host: TamTraceSystem

    def join(self, pid: int, group: int, repair: bool = False) -> None:
        self.tv_host.tv_joining(pid, group, repair)
        super().join(pid, group, repair)

    def _on_publish(self, pid: int, msg: ScribePublish[Event]) -> None:
        if self.ring.next_hop(pid, msg.group) == pid:
            self.tv_host.tv_at_root(msg.group, msg.payload.id)
        super()._on_publish(pid, msg)


class TamTraceSystem(TamSystem):
    """The reference with recording hooks (module doc); subclasses are the mutants."""

    scribe_class: type[_TraceScribe] = _TraceScribe

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: TamConfig,
        seed: int,
        initial_nodes: Sequence[str],
        repair: bool = True,
        seen_list: bool = True,
    ) -> None:
        super().__init__(schemas, matching, config, seed, initial_nodes, repair, seen_list)
        assert len(self.engine) == 0
        self.engine = RecordingEngine(self._tv_scheduled)
        scribe = self.scribe_class(self.ring, self, repair)
        scribe.tv_host = self
        self.scribe = scribe
        self.tv_groups: dict[int, _GroupLog] = {}
        self.tv_flight: dict[int, tuple[int, Hop, int]] = {}  # id(hop) -> sender, hop, place
        self._tv_src = 0

    # -- observation ------------------------------------------------------------------------
    def send(self, src: int, dst: int, msg: ScribeMessage[Event]) -> None:
        self._tv_src = src
        super().send(src, dst, msg)

    def _tv_scheduled(self, item: Item) -> None:
        assert isinstance(item, Hop)
        place = 0
        if isinstance(item.msg, ScribeJoin | ScribeLeave):
            g = item.msg.group
            on = [
                k
                for s, h, k in self.tv_flight.values()
                if s == self._tv_src and h.dst == item.dst and h.msg.group == g and k
            ]
            place = 1 + max(on, default=0)
        self.tv_flight[id(item)] = (self._tv_src, item, place)

    def _tv_msgs(self, group: int) -> frozenset[Ctl | Mc]:
        out: set[Ctl | Mc] = set()
        for s, h, k in self.tv_flight.values():
            m = h.msg
            if m.group != group:
                continue
            if isinstance(m, ScribeJoin):
                out.add(("join", s, h.dst, k))
            elif isinstance(m, ScribeLeave):
                out.add(("leave", s, h.dst, k))
            elif isinstance(m, ScribeMulticast):
                out.add(("mc", s, h.dst, m.payload.id))
        return frozenset(out)

    def tv_joining(self, pid: int, group: int, repair: bool) -> None:
        log = self.tv_groups.setdefault(group, _GroupLog())
        if repair or pid in log.subd:
            log.problem = log.problem or "a repair, or a second join of one peer"
        if not log.states:
            log.states.append(self._tv_raw(group, log))  # Init: the group had no state
        log.subd.add(pid)

    def tv_at_root(self, group: int, event_id: str) -> None:
        log = self.tv_groups.get(group)
        if log is None:
            return  # a group no member ever joined: not validated
        nodes = self.scribe.groups.get(group, {})
        log.published.append(event_id)
        log.active_at[event_id] = frozenset(p for p, st in nodes.items() if st.member)
        log.clean[event_id] = not any(
            isinstance(m, tuple) and m[0] != "mc" for m in self._tv_msgs(group)
        )

    def deliver(self, pid: int, group: int, payload: Event) -> None:
        log = self.tv_groups.get(group)
        if log is not None:
            log.got[(payload.id, pid)] += 1
        super().deliver(pid, group, payload)

    def _tv_raw(self, group: int, log: _GroupLog) -> RawState:
        nodes = self.scribe.groups.get(group, {})
        return RawState(
            frozenset(nodes),
            tuple(sorted((p, st.parent) for p, st in nodes.items() if st.parent is not None)),
            tuple(sorted((p, frozenset(st.children)) for p, st in nodes.items() if st.children)),
            frozenset(p for p, st in nodes.items() if st.member),
            frozenset(log.subd),
            self._tv_msgs(group),
            tuple(sorted((q, min(2, c)) for q, c in log.got.items())),
            tuple(log.published),
            tuple(sorted(log.active_at.items())),
            tuple(sorted(log.clean.items())),
        )

    def tv_record(self) -> None:
        for g, log in self.tv_groups.items():
            raw = self._tv_raw(g, log)
            if log.states[-1] != raw:
                log.states.append(raw)

    # -- hooks ------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        super().subscribe(sub, seq)
        self.tv_record()

    def unsubscribe(self, sub_id: str) -> None:
        super().unsubscribe(sub_id)
        self.tv_record()

    def publish(self, event: Event, seq: int) -> None:
        super().publish(event, seq)
        self.tv_record()

    def _dispatch(self, item: Item) -> str:
        self.tv_flight.pop(id(item), None)
        out = super()._dispatch(item)
        self.tv_record()
        return out


class _NonStopScribe(_TraceScribe):
    def _on_join(self, pid: int, msg: ScribeJoin) -> None:
        st = self.state(pid, msg.group)
        super()._on_join(pid, msg)
        if st is not None and st.parent is not None:  # the slip: pass the JOIN on anyway
            self.host.send(pid, st.parent, ScribeJoin(msg.group, pid, msg.origin, msg.repair))


class NonStopJoinTam(TamTraceSystem):
    """MUTANT (a cost-only slip): a JOIN reaching a peer already in the tree is absorbed there
    and yet passed on toward the root (Tam et al. §3.3: "routing stops upon encountering an
    edge of the multicast tree"). Each peer above already has the sender as its child, so the
    tree and every delivery are unchanged, the oracle sees nothing; the spec's RecvJoinAbsorb
    sends nothing, so validation rejects the step."""

    scribe_class = _NonStopScribe


# -- workloads ------------------------------------------------------------------------------
def tam_trace(seed: int, peers: int = 24, subs: int = 8, events: int = 4) -> Trace:
    """A small workload inside the map: `peers` peers with a Pastry leaf set of 2 (routes of
    several hops), subscriptions on one or two values of k from distinct (peer, value) pairs,
    one unsubscription, publications; every draw from `random.Random(f"{seed}:tv-tam")`."""
    rng = random.Random(f"{seed}:tv-tam")
    ops: list[Op] = []
    used: set[tuple[int, int]] = set()
    made: list[str] = []
    kinds = ["s"] * subs + ["p"] * events
    rng.shuffle(kinds)
    kinds.insert(rng.randint(kinds.index("s") + 1, len(kinds)), "u")
    for i, k in enumerate(kinds, start=1):
        if k == "s":
            while True:
                who = rng.randrange(peers)
                lo = rng.randrange(3)
                hi = min(2, lo + rng.randrange(2))
                if all((who, v) not in used for v in range(lo, hi + 1)):
                    break
            used.update((who, v) for v in range(lo, hi + 1))
            pred = (Predicate("k", lo, hi),)
            ops.append(Subscribe(i, Subscription(f"s{i}", f"n{who}", "kv", pred)))
            made.append(f"s{i}")
        elif k == "u":
            ops.append(Unsubscribe(i, made[rng.randrange(len(made))]))
        else:
            ev = Event(f"e{i}", f"n{rng.randrange(peers)}", "kv", (("k", rng.randrange(3)),))
            ops.append(Publish(i, ev))
    return Trace(
        (SCHEMA,),
        tuple(ops),
        initial_nodes=peers,
        seed=seed,
        timing=Timing(sub_interarrival_ms=1.0, pub_interarrival_ms=1.0),
        sections=((SECTION, TamConfig(leaf_set_size=2, digit_bits=2)),),
        generator="tv-tam",
    )


# -- the abstraction map --------------------------------------------------------------------
def spec_next_hop(p: int, alive: frozenset[int]) -> int:
    """Scribe.tla's NextHop: the largest live q <= p div 2, else the home (the smallest)."""
    lower = [q for q in alive if q <= p // 2]
    return max(lower) if lower else min(alive)


def embed(home: int, parent: dict[int, int]) -> dict[int, int] | None:
    """Spec ids for the route tree `parent` (peer -> Pastry next hop) rooted at `home` such
    that the spec's NextHop is the tree's parent (module doc); None when none is found."""
    kids: dict[int, list[int]] = {}
    for p, q in parent.items():
        kids.setdefault(q, []).append(p)
    order = [home]
    todo = deque([home])
    while todo:
        for c in sorted(kids.get(todo.popleft(), ())):
            order.append(c)
            todo.append(c)
    if len(order) != len(parent) + 1:
        return None  # not a tree rooted at the home
    idx = {p: i for i, p in enumerate(order)}
    x = [1] * len(order)
    for _ in range(4 * len(order) + 4):
        for i in range(1, len(order)):  # increasing, inside the parent's interval
            x[i] = max(x[i], x[i - 1] + 1, 2 * x[idx[parent[order[i]]]])
        bumped = False
        for i in range(1, len(order)):  # the next id after the parent's must lie above
            j = idx[parent[order[i]]]
            if j + 1 < len(order) and x[i] // 2 >= x[j + 1]:
                x[j + 1] = x[i] // 2 + 1
                bumped = True
        if not bumped:
            ids = {p: x[idx[p]] for p in order}
            alive = frozenset(ids.values())
            ok = all(spec_next_hop(ids[p], alive) == ids[q] for p, q in parent.items())
            return ids if ok else None
    return None


@dataclass(frozen=True)
class ScribeRun:
    group: int
    states: list[dict[str, TlaValue]]
    peers: frozenset[int]
    cand: frozenset[int]
    pubs: int
    problem: str


def _map_group(ring: PastryRing, group: int, log: _GroupLog, problem: str) -> ScribeRun:
    home = ring.closest(group)
    members = set().union(*(s.subd for s in log.states))
    parent: dict[int, int] = {}
    for m in members:
        p = m
        while p != home and p not in parent:
            parent[p] = ring.next_hop(p, group)
            p = parent[p]
    ids = embed(home, parent)
    if ids is None:
        return ScribeRun(group, [], frozenset(), frozenset(), 0, problem or "no embedding")
    pub = {e: j for j, e in enumerate(log.published, start=1)}
    peers = frozenset(ids.values())

    def fn(pairs: dict[int, TlaValue]) -> TlaValue:
        return frozenset(pairs.items())

    states: list[dict[str, TlaValue]] = []
    try:
        for r in log.states:
            msgs: set[TlaValue] = set()
            for raw in r.msgs:
                t, s, d, z = raw
                e = pub[z] if isinstance(z, str) else 0
                k = z if isinstance(z, int) else 0
                msgs.add(Rec(t=t, s=ids[s], d=ids[d], e=e, ep=0, k=k))
            par = dict(r.par)
            ch = dict(r.ch)
            state: dict[str, TlaValue] = {
                "alive": peers,
                "down": frozenset(),
                "inT": fn({ids[p]: p in r.inT for p in ids}),
                "par": fn({ids[p]: ids[par[p]] if p in par else 0 for p in ids}),
                "ch": fn({ids[p]: frozenset(ids[c] for c in ch.get(p, ())) for p in ids}),
                "mem": fn({ids[p]: p in r.mem for p in ids}),
                "subd": frozenset(ids[p] for p in r.subd),
                "msgs": frozenset(msgs),
                "epoch": 0,
                "dirty": False,
                "fails": 0,
                "got": frozenset(((pub[e], ids[p]), c) for (e, p), c in r.got),
                "published": frozenset(pub[e] for e in r.published),
                "activeAt": frozenset(
                    (pub[e], frozenset(ids[p] for p in a)) for e, a in r.active_at
                ),
                "clean": frozenset((pub[e], c) for e, c in r.clean),
            }
            if not states or states[-1] != state:
                states.append(state)
    except KeyError as exc:  # a peer outside the route tree
        problem = problem or f"peer {exc} outside the map"
    cand = frozenset(ids[p] for p in members)
    return ScribeRun(group, states, peers, cand, len(pub), problem)


def record_tam_runs(
    trace: Trace, system_class: type[TamTraceSystem] = TamTraceSystem
) -> list[ScribeRun]:
    """Run the trace on the observing system; one mapped run per group with a member."""
    system = run_trace(trace, system_class.for_trace).system
    assert isinstance(system, TamTraceSystem)
    return [
        _map_group(system.ring, g, log, log.problem) for g, log in sorted(system.tv_groups.items())
    ]


# -- the generated module -------------------------------------------------------------------
def scribe_module(run: ScribeRun, name: str = "TVScribe") -> tuple[str, str, int]:
    """The generated module, its cfg and the number of recorded states."""
    defs = """TVFn(S, dflt) == [p \\in Peer |->
    IF \\E q \\in S : q[1] = p THEN (CHOOSE q \\in S : q[1] = p)[2] ELSE dflt]
TVGot(S) == [e \\in Pub |-> [p \\in Peer |->
    IF \\E q \\in S : q[1] = <<e, p>> THEN (CHOOSE q \\in S : q[1] = <<e, p>>)[2] ELSE 0]]
TVAt(S, dflt) == [e \\in Pub |->
    IF \\E q \\in S : q[1] = e THEN (CHOOSE q \\in S : q[1] = e)[2] ELSE dflt]"""
    wrap = {
        "inT": "TVFn({}, FALSE)",
        "par": "TVFn({}, 0)",
        "ch": "TVFn({}, {{}})",
        "mem": "TVFn({}, FALSE)",
        "got": "TVGot({})",
        "activeAt": "TVAt({}, {{}})",
        "clean": "TVAt({}, FALSE)",
    }
    module = rest_module(name, "Scribe", VARIABLES, run.states, defs, wrap)

    def lit(s: frozenset[int]) -> str:
        return "{" + ", ".join(str(p) for p in sorted(s)) + "}"

    cfg = f"""CONSTANTS
    Peer = {lit(run.peers)}
    Late = {{}}
    Cand = {lit(run.cand)}
    Fallible = {{}}
    MaxFail = 0
    Pubs = {run.pubs}
    Repair = "rebuild"
    Fifo = TRUE
    Discard = TRUE
    Bug = "none"
INIT TVInit
NEXT TVNext
"""
    return module, cfg, len(run.states)


def in_flight(state: dict[str, TlaValue]) -> frozenset[str]:
    """The message types ("join", "leave", "mc") in flight in a state."""
    msgs = state["msgs"]
    assert isinstance(msgs, frozenset)
    return frozenset(str(m["t"]) for m in msgs if isinstance(m, Rec))


def validate_scribe(run: ScribeRun, name: str = "TVScribe") -> Validation | None:
    """Validate one group's run against Scribe.tla; None when it is outside the map."""
    if run.problem or not run.states:
        return None
    module, cfg, n = scribe_module(run, name)
    return validate("tam", name, module, cfg, expect_states=n, max_depth=n + 1)


def oracle_agrees_tam(trace: Trace, system_class: type[TamTraceSystem]) -> bool:
    """The delivery oracle alone: the run's deliveries are exactly the expected ones."""
    _, comparison = run_and_compare(trace, system_class.for_trace)
    return comparison.agree
