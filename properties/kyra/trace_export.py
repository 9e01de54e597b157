"""Trace validation of Kyra runs against spec/kyra/KyraRouting.tla.

`KyraTraceSystem` observes a run of the reference `KyraSystem` (it draws nothing, sends
nothing and changes no state the system reads: tests/test_trace_validation_kyra.py compares
event-log hashes): its engine notes every message scheduled, and a state is recorded after each
subscribe and publish op and after each handled message (one handler is one spec step:
`RecvMove`, `RecvProp`, `Route` or `RecvNotify`). A generated module lets tla-checker decide
whether the recorded states are a behaviour of `Init /\\ [][Next]_vars` with the run's
constants (ZoneCheck = TRUE, EarlyInstall = FALSE, Bug = "none", no unsubscription).

Runs inside the map (`kyra_trace` builds them): one schema with one int attribute `k` in
0..5 (the partition attribute: the spec's keys), subscriptions `lo <= k <= hi`, events with a
value of `k`, cliques given explicitly (HAC is checked in Python), the MST over the latency
model's distances. Abstraction map
(docs/tla.md, "Trace validation"):

- servers n0.. -> 1..N in the trace's order; subscription i / event j in trace order -> i / j;
  `Clique[n]` = n's clique; `Zone[n]` = the keys n's zone contains; `Y[t]` = the keys of tree
  t's zone (trees in the layout's order -> 1..T); `Adj[t][n]` = n's MST neighbours on t (all
  from the reference's layout: the spec takes the layout as constants, its `LayoutOK` checks
  it is one); `Orig[i]` = the subscriber, `Ext[i]` = lo..hi; `Pub[j]`, `Key[j]` = the
  publisher and its value of k;
- `started` = the subscriptions subscribed; `unsubbed` = {}; `proxy[n]` = the subscriptions of
  n's proxy table; `tab[t][n]` = <<direction, s, proxy>> for each entry of n's routing table of
  tree t; `published`; `subAt[j]` = the subscriptions started before j (the reference's seq
  rule); `activeAt[j]` = those whose installation waited for no message any more when j was
  published (K-D12: the reference's `Installation.pending = 0`); `dcount[<<j, i>>]` = min(2,
  deliveries of j to i);
- `msgs`: SubMove -> "move", SubPropagate -> "prop" (tree, subscription, proxy = the entry's
  origin), EventToZone -> "zone" (the covering tree), EventRoute -> "route", Notify ->
  "notify" (its subscription ids), each with its sender and receiver; messages to oneself are
  messages in flight as in the spec;
- an unsubscription: the driver runs the system to quiescence before and after it (D-OPS), and
  the spec's `Unsubscribe` is one step at quiescence: the op and every UnsubMove and
  UnsubPropagate it causes are one recorded step (no state is recorded until the engine is
  empty again); `unsubbed` = the subscriptions unsubscribed, `Unsubs` = those of the trace.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pubsub_spec.properties.thesis.tree_trace import Rec
from pubsub_spec.properties.tracecheck import (
    RecordingEngine,
    TlaValue,
    Validation,
    rest_module,
    tla_literal,
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
from pubsub_spec.reference.kyra.base import Arrival
from pubsub_spec.reference.kyra.filters import RoutingTable
from pubsub_spec.reference.kyra.messages import (
    EventRoute,
    EventToZone,
    Notify,
    SubMove,
    SubPropagate,
)
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.kyra.zones import Box, Point
from pubsub_spec.reference.sim.run import run_and_compare, run_trace

KEYS = 6  # the partition attribute's values 0..KEYS - 1: the spec's Keys
SCHEMA = Schema("kv", (Attribute("k", "int", 0, KEYS - 1),))
VARIABLES = (
    "started", "unsubbed", "proxy", "tab", "msgs", "published", "subAt", "activeAt", "dcount",
)  # fmt: skip


class NotMapped(Exception):
    """The run leaves the abstraction map (module doc)."""


class KyraTraceSystem(KyraSystem):
    """The reference with recording hooks (module doc); subclasses are the mutants."""

    def __init__(self, trace: Trace, cliques: list[tuple[str, ...]] | None = None) -> None:
        super().__init__(trace, cliques)
        assert len(self.engine) == 0
        self.engine = RecordingEngine(self._tv_scheduled)
        self.tv_num = {s: i + 1 for i, s in enumerate(self.servers)}
        self.tv_trees = {t.name: i + 1 for i, t in enumerate(self.layouts[SCHEMA.name].trees)}
        self.tv_subs: dict[str, int] = {}
        self.tv_events: dict[str, int] = {}
        self.tv_sub_at: dict[int, frozenset[int]] = {}
        self.tv_active_at: dict[int, frozenset[int]] = {}
        self.tv_flight: dict[int, Arrival] = {}
        self.tv_states: list[dict[str, TlaValue]] = []
        self.tv_problem = ""
        self.tv_unsubbed: set[int] = set()
        self._tv_quiet = False  # an unsubscription's messages in flight (module doc)
        self.tv_n_events = sum(isinstance(op, Publish) for op in trace.ops)
        self.tv_record()  # Init

    # -- observation ------------------------------------------------------------------------
    def _tv_scheduled(self, item: Arrival) -> None:
        self.tv_flight[id(item)] = item

    def _tv_msg(self, a: Arrival) -> TlaValue:
        n, m = self.tv_num, a.msg

        def rec(t: str, tree: int = 0, s: int = 0, p: int = 0, e: int = 0, subs: frozenset[int]
                = frozenset()) -> TlaValue:  # fmt: skip
            return Rec(t=t, **{"from": n[a.src]}, to=n[a.dst], tree=tree, s=s, p=p, e=e, subs=subs)

        if isinstance(m, SubMove):
            if m.remove:
                raise NotMapped("a removal outside its unsubscription step")
            return rec("move", s=self.tv_subs[m.sub.id])
        if isinstance(m, SubPropagate):
            if m.remove:
                raise NotMapped("a removal outside its unsubscription step")
            f = m.filter
            return rec("prop", self.tv_trees[m.tree], self.tv_subs[f.sub.id], n[f.origin])
        if isinstance(m, EventToZone):
            tree = self.tv_trees[self.covering_tree(m.event).name]
            return rec("zone", tree, e=self.tv_events[m.event.id])
        if isinstance(m, EventRoute):
            return rec("route", self.tv_trees[m.tree], e=self.tv_events[m.event.id])
        if isinstance(m, Notify):
            subs = frozenset(self.tv_subs[s] for s in m.sub_ids)
            return rec("notify", e=self.tv_events[m.event.id], subs=subs)
        raise NotMapped(f"message {type(m).__name__}")

    def tv_record(self) -> None:
        if self.tv_problem or self._tv_quiet:
            return
        try:
            state = self._tv_state()
        except NotMapped as exc:
            self.tv_problem = str(exc)
            return
        if not self.tv_states or self.tv_states[-1] != state:
            self.tv_states.append(state)

    def _tv_state(self) -> dict[str, TlaValue]:
        n, subs = self.tv_num, self.tv_subs
        events = range(1, self.tv_n_events + 1)
        tab: list[TlaValue] = []
        for tree in self.layouts[SCHEMA.name].trees:
            row: list[TlaValue] = []
            for server in self.servers:
                table = self.tables.get((server, tree.name)) or RoutingTable()
                row.append(
                    frozenset(
                        (n[d], subs[f.sub.id], n[f.origin])
                        for d, fs in table.entries.items()
                        for f in fs.values()
                    )
                )
            tab.append(tuple(row))
        counts = Counter((d.event_id, d.sub_id) for d in self.deliveries)
        return {
            "started": frozenset(subs.values()),
            "unsubbed": frozenset(self.tv_unsubbed),
            "proxy": tuple(frozenset(subs[i] for i in self.proxy[s]) for s in self.servers),
            "tab": tuple(tab),
            "msgs": frozenset(self._tv_msg(a) for a in self.tv_flight.values()),
            "published": frozenset(self.tv_events.values()),
            "subAt": tuple(self.tv_sub_at.get(j, frozenset()) for j in events),
            "activeAt": tuple(self.tv_active_at.get(j, frozenset()) for j in events),
            "dcount": frozenset(
                ((self.tv_events[e], subs[s]), min(2, c)) for (e, s), c in counts.items()
            ),
        }

    # -- hooks ------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        self.tv_subs.setdefault(sub.id, len(self.tv_subs) + 1)
        super().subscribe(sub, seq)
        self.tv_record()

    def unsubscribe(self, sub_id: str) -> None:
        self.tv_unsubbed.add(self.tv_subs[sub_id])
        self._tv_quiet = True
        super().unsubscribe(sub_id)
        self._tv_end_quiet()

    def _tv_end_quiet(self) -> None:
        if self._tv_quiet and len(self.engine) == 0:
            self._tv_quiet = False
            self.tv_record()

    def publish(self, event: Event, seq: int) -> None:
        j = self.tv_events.setdefault(event.id, len(self.tv_events) + 1)
        # the seq rule (K-D12): started before; installed: nothing it caused in flight
        self.tv_sub_at[j] = frozenset(self.tv_subs[s] for s in self.subs if self.subs[s].active)
        self.tv_active_at[j] = frozenset(
            self.tv_subs[s] for s, st in self.subs.items() if st.active and st.install.pending == 0
        )
        super().publish(event, seq)
        self.tv_record()

    def _dispatch(self, item: Arrival) -> str:
        self.tv_flight.pop(id(item), None)
        out = super()._dispatch(item)
        self.tv_record()
        self._tv_end_quiet()
        return out


class _FloodTable(RoutingTable):
    def forward_to(
        self,
        event: Event,
        key: Point,
        mode: MatchMode,
        neighbours: Iterable[str],
        came_from: str | None,
    ) -> tuple[list[str], int]:
        return [n for n in sorted(neighbours) if n != came_from], 0


class FloodTreeKyra(KyraTraceSystem):
    """MUTANT (a cost-only slip): a server forwards an event to every neighbour on the covering
    tree except the one it came from, whatever its routing table admits (the filters of §II.A
    not applied; Kyra sends an event only toward directions with an admitting entry). The
    zones of a clique partition the keys and a tree is acyclic, so the one covering proxy of
    each clique still receives the event exactly once and relays deliver nothing: every
    delivery is right, the oracle sees nothing; the spec's `Route` forwards only toward
    admitting entries, so validation rejects the step."""

    def table(self, server: str, tree: str) -> RoutingTable:
        t = self.tables.get((server, tree))
        if t is None:
            t = self.tables[(server, tree)] = _FloodTable()
        return t


# -- workloads ------------------------------------------------------------------------------
def kyra_trace(seed: int, subs: int = 4, events: int = 4) -> Trace:
    """A small workload inside the map: 4-6 servers, subscriptions and publications shuffled,
    one unsubscription after the first subscription, ops 1 ms apart (publications 0.01 ms) so
    that events race the subscriptions' propagation; every draw from
    `random.Random(f"{seed}:tv-kyra")`."""
    rng = random.Random(f"{seed}:tv-kyra")
    nodes = rng.randint(4, 6)
    kinds = ["s"] * subs + ["p"] * events
    rng.shuffle(kinds)
    kinds.insert(rng.randint(kinds.index("s") + 1, len(kinds)), "u")
    ops: list[Op] = []
    made: list[str] = []
    for i, k in enumerate(kinds, start=1):
        who = f"n{rng.randrange(nodes)}"
        if k == "u":
            ops.append(Unsubscribe(i, made[rng.randrange(len(made))]))
        elif k == "s":
            made.append(f"s{i}")
            lo = rng.randrange(KEYS)
            hi = rng.randint(lo, min(KEYS - 1, lo + 3))
            ops.append(Subscribe(i, Subscription(f"s{i}", who, "kv", (Predicate("k", lo, hi),))))
        else:
            ops.append(Publish(i, Event(f"e{i}", who, "kv", (("k", rng.randrange(KEYS)),))))
    return Trace(
        (SCHEMA,),
        tuple(ops),
        initial_nodes=nodes,
        seed=seed,
        timing=Timing(sub_interarrival_ms=1.0, pub_interarrival_ms=0.01),
        generator="tv-kyra",
    )


def cliques_of(trace: Trace) -> list[tuple[str, ...]]:
    """Two cliques (sizes drawn from the trace's seed): the servers in trace order, split."""
    names = [f"n{i}" for i in range(trace.initial_nodes)]
    cut = random.Random(f"{trace.seed}:tv-kyra-cliques").randint(1, len(names) - 1)
    return [tuple(names[:cut]), tuple(names[cut:])]


# -- the generated module -------------------------------------------------------------------
@dataclass(frozen=True)
class KyraRun:
    trace: Trace
    states: list[dict[str, TlaValue]]
    constants: dict[str, TlaValue]
    n_servers: int
    n_trees: int
    unsubs: frozenset[int]
    problem: str


def _maker(system_class: type[KyraTraceSystem]) -> Callable[[Trace], KyraTraceSystem]:
    def make(trace: Trace) -> KyraTraceSystem:
        return system_class(trace, cliques_of(trace))

    return make


def record_kyra_run(trace: Trace, system_class: type[KyraTraceSystem] = KyraTraceSystem) -> KyraRun:
    """Run the trace on the observing system and apply the abstraction map (module doc)."""
    events = [op.event for op in trace.ops if isinstance(op, Publish)]
    subs = [op.sub for op in trace.ops if isinstance(op, Subscribe)]
    system = run_trace(trace, _maker(system_class)).system
    lay = system.layouts[SCHEMA.name]
    num = system.tv_num
    keys = range(KEYS)

    def ks(z: Box) -> frozenset[int]:
        return frozenset(k for k in keys if z.contains((k,)))

    def key_of(e: Event) -> int:
        return int(e.value("k") or 0)

    def ext(s: Subscription) -> frozenset[int]:
        p = s.predicate("k")
        assert p is not None
        return frozenset(range(int(p.lo), int(p.hi) + 1))

    constants: dict[str, TlaValue] = {
        "Clique": tuple(frozenset(num[m] for m in system.clique_of[s]) for s in system.servers),
        "Zone": tuple(ks(lay.zones[s]) for s in system.servers),
        "Y": tuple(ks(t.zone) for t in lay.trees),
        "Adj": tuple(
            tuple(frozenset(num[x] for x in t.adj.get(s, ())) for s in system.servers)
            for t in lay.trees
        ),
        "Orig": tuple(num[s.subscriber] for s in subs),
        "Ext": tuple(ext(s) for s in subs),
        "Pub": tuple(num[e.publisher] for e in events),
        "Key": tuple(key_of(e) for e in events),
    }
    problem = system.tv_problem
    if not subs or not events:
        problem = problem or "no subscription or no publication"
    unsubs = frozenset(system.tv_unsubbed)
    return KyraRun(trace, system.tv_states, constants, len(num), len(lay.trees), unsubs, problem)


def kyra_module(run: KyraRun, name: str = "TVKyra") -> tuple[str, str, int]:
    """The generated module, its cfg and the number of recorded states."""
    defs = "\n".join(f"TV{k} == {tla_literal(v)}" for k, v in run.constants.items())
    defs += f"\nTVServers == 1..{run.n_servers}\nTVKeys == 0..{KEYS - 1}"
    defs += """
TVCount(S) == [p \\in Events \\X Subs |->
    IF \\E q \\in S : q[1] = p THEN (CHOOSE q \\in S : q[1] = p)[2] ELSE 0]"""
    module = rest_module(
        name, "KyraRouting", VARIABLES, run.states, defs, wrap={"dcount": "TVCount({})"}
    )
    subs = len(run.constants["Orig"])  # type: ignore[arg-type]
    events = len(run.constants["Pub"])  # type: ignore[arg-type]
    refs = "\n".join(f"    {k} <- TV{k}" for k in run.constants)
    cfg = f"""CONSTANTS
    NTrees = {run.n_trees}
    NSubs = {subs}
    NEvents = {events}
    Unsubs = {tla_literal(run.unsubs)}
    ZoneCheck = TRUE
    EarlyInstall = FALSE
    Bug = "none"
    Servers <- TVServers
    Keys <- TVKeys
{refs}
INIT TVInit
NEXT TVNext
"""
    return module, cfg, len(run.states)


def in_flight(state: dict[str, TlaValue]) -> frozenset[str]:
    """The message types ("move", "prop", "zone", "route", "notify") in flight in a state."""
    msgs = state["msgs"]
    assert isinstance(msgs, frozenset)
    return frozenset(str(m["t"]) for m in msgs if isinstance(m, Rec))


def validate_kyra(run: KyraRun, name: str = "TVKyra") -> Validation | None:
    """Validate one recorded run against KyraRouting.tla; None when it is outside the map."""
    if run.problem:
        return None
    module, cfg, n = kyra_module(run, name)
    return validate("kyra", name, module, cfg, expect_states=n, max_depth=n + 1)


def oracle_agrees_kyra(trace: Trace, system_class: type[KyraTraceSystem]) -> bool:
    """The delivery oracle alone: the run's deliveries are exactly the expected ones."""
    _, comparison = run_and_compare(trace, _maker(system_class))
    return comparison.agree
