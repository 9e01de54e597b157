"""Trace validation of OctopiA's notification routing against spec/octopia/ScotRouting.tla.

`ScotTraceSystem` observes a run of the reference `OctopiaSystem` (SNR or IDR; it draws
nothing, sends nothing and changes no state the system reads:
tests/test_trace_validation_octopia.py compares event-log hashes): it notes every
Notification copy it sends (a multiset of (sender, receiver, copy) in flight), and the
notifications of each publication are recorded as a run of its own
(ScotRouting.tla models one publication): a state when the publication is made (the spec's
`Publish`: the host receives, delivers and sends its copies in one step) and after each of its
notifications is handled (`Deliver`). A generated module per publication lets tla-checker
decide whether the recorded states are a behaviour of `Init /\\ [][Next]_vars` with the run's
constants (Mode = the run's routing, HostSubs = TRUE, Bug = "none").

Runs inside the map (`scot_trace` builds them): the SCOT path-NX x K_M (G_A a path, as in the
spec; NX in 2..3, M in 2..3), one publisher and at most one subscriber per broker, attached
explicitly, every subscription matching every publication (the spec has no content: a
subscriber is a broker), subscriptions made before the publications (installed: broadcast in
their clusters, CIB bits set at the hosts, §VI), no unsubscription (CIB bits are never cleared,
A6, so the STCs would outlive the subscribers); under IDR, links overloaded with probability
1/2 by the reference's seeded `forced_overload` (the spec chooses any set). Abstraction map
(docs/tla.md, "Trace validation"):

- broker B(x, i) -> <<position of x on the path (1..NX), i>>; `Host` = the publisher's broker;
- `subs` = the brokers with a subscriber; `published` = the publication was made;
- `msgs`: each of its Notification copies in flight from b to c with CIV bits v ->
  [src |-> b, dst |-> c, civ |-> v]; the other messages (subscriptions, advertisements,
  CIB_SET, other publications' copies) are not the spec's;
- `recv[b]` = min(2, receptions of the publication at b, the reference's I3 counter);
  `dlv[b]` = min(2, its deliveries to b's subscriber).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from pubsub_spec.properties.thesis.tree_trace import Rec
from pubsub_spec.properties.tracecheck import (
    TlaValue,
    Validation,
    rest_module,
    tla_literal,
    validate,
)
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Timing, Trace
from pubsub_spec.reference.octopia.civ import bits
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.messages import Message, Notification
from pubsub_spec.reference.octopia.scot import Broker, path_factor
from pubsub_spec.reference.octopia.system import Arrival, OctopiaSystem
from pubsub_spec.reference.sim.run import run_and_compare, run_trace

SCHEMA = Schema("q", (Attribute("v", "int", 0, 9),))
VARIABLES = ("subs", "msgs", "recv", "dlv", "published")


class ScotTraceSystem(OctopiaSystem):
    """The reference with recording hooks (module doc); subclasses are the mutants."""

    def __init__(self, trace: Trace, config: OctopiaConfig, routing: str) -> None:
        # set first: the base class runs the implicit advertisements (O-IMPLICIT) at once
        self.tv_flight: Counter[tuple[Broker, Broker, Notification]] = Counter()
        self.tv_runs: dict[str, list[dict[str, TlaValue]]] = {}
        super().__init__(trace, config, routing)
        order = {
            x: k + 1 for k, x in enumerate(path_factor(len(self.scot.factor.vertices)).vertices)
        }
        if set(order) != set(self.scot.factor.vertices) or self.scot.factor.edges != tuple(
            path_factor(len(order)).edges
        ):
            raise ValueError("the map needs G_A = path_factor(NX)")
        self.tv_pos = order
        self.tv_subs: frozenset[TlaValue] = frozenset()

    def tv_broker(self, b: Broker) -> TlaValue:
        return (self.tv_pos[b[0]], b[1])

    # -- observation ------------------------------------------------------------------------
    def send(self, src: Broker, dst: Broker, msg: Message) -> None:
        super().send(src, dst, msg)
        if isinstance(msg, Notification):
            self.tv_flight[(src, dst, msg)] += 1

    def _tv_state(self, event_id: str, published: bool) -> dict[str, TlaValue]:
        msgs = frozenset(
            Rec(src=self.tv_broker(src), dst=self.tv_broker(dst), civ=frozenset(bits(n.civ)))
            for (src, dst, n), count in self.tv_flight.items()
            if count and n.event.id == event_id
        )
        dl = Counter(d.sub_id for d in self.deliveries if d.event_id == event_id)
        brokers = self.scot.brokers
        by_host = {st.host: sid for sid, st in self.subs.items()}
        return {
            "subs": self.tv_subs,
            "msgs": msgs,
            "recv": frozenset(
                (self.tv_broker(b), min(2, self.receptions[(event_id, b)])) for b in brokers
            ),
            "dlv": frozenset(
                (self.tv_broker(b), min(2, dl[by_host[b]] if b in by_host else 0)) for b in brokers
            ),
            "published": published,
        }

    def _tv_record(self, event_id: str) -> None:
        states = self.tv_runs[event_id]
        s = self._tv_state(event_id, True)
        if states[-1] != s:
            states.append(s)

    # -- hooks ------------------------------------------------------------------------------
    def publish(self, event: Event, seq: int) -> None:
        self.tv_subs = frozenset(self.tv_broker(st.host) for st in self.subs.values())
        self.tv_runs[event.id] = [self._tv_state(event.id, False)]  # Init
        super().publish(event, seq)
        self._tv_record(event.id)

    def _dispatch(self, item: Arrival) -> str:
        if isinstance(item.msg, Notification) and item.src is not None:
            self.tv_flight[(item.src, item.dst, item.msg)] -= 1
        out = super()._dispatch(item)
        if isinstance(item.msg, Notification) and item.msg.event.id in self.tv_runs:
            self._tv_record(item.msg.event.id)
        return out


class StcToAllScot(ScotTraceSystem):
    """MUTANT (a cost-only slip): the host sends a copy to every other cluster of its region,
    ignoring its CIV (the STC bits, §VII-A: one copy per STC only). A cluster without a
    subscriber has no matching PRT entry, so the copy goes no further and delivers nothing:
    every delivery is right, the oracle sees nothing; the spec's `Publish` sends copies to the
    STCs only, so validation rejects the step."""

    def route(self, b: Broker, event: Event, src: Broker | None, civ: int) -> None:
        if src is None:
            civ = (1 << self.scot.m) - 1
        super().route(b, event, src, civ)


# -- workloads ------------------------------------------------------------------------------
def scot_trace(seed: int, routing: str = "snr", events: int = 3) -> Trace:
    """A small workload inside the map: path-NX x K_M, a publisher at a random broker,
    subscribers at a random set of other (or the same) brokers, all matching; then `events`
    publications 0.5 ms apart (their copies interleave). Every draw from
    `random.Random(f"{seed}:tv-scot:{routing}")`."""
    rng = random.Random(f"{seed}:tv-scot:{routing}")
    nx, m = rng.randint(2, 3), rng.randint(2, 3)
    factor = path_factor(nx)
    brokers = [(x, i) for i in range(m) for x in factor.vertices]
    host = rng.choice(brokers)
    at = rng.sample(brokers, rng.randint(1, len(brokers) - 1))
    attach = [("n0", host[0], host[1])]
    ops: list[Op] = []
    for k, (x, i) in enumerate(at, start=1):
        attach.append((f"n{k}", x, i))
        lo = rng.randint(0, 3)
        preds = (Predicate("v", lo, rng.randint(6, 9)),)
        ops.append(Subscribe(k, Subscription(f"s{k}", f"n{k}", "q", preds)))
    for _ in range(events):
        seq = len(ops) + 1
        ops.append(Publish(seq, Event(f"e{seq}", "n0", "q", (("v", rng.randint(4, 5)),))))
    config = OctopiaConfig(
        acyclic_edges=factor.edges,
        m=m,
        attach=tuple(attach),
        forced_overload=0.5 if routing == "idr" else 0.0,
    )
    section = f"octopia-{routing}"
    return Trace(
        (SCHEMA,),
        tuple(ops),
        initial_nodes=len(attach),
        seed=seed,
        timing=Timing(sub_interarrival_ms=1.0, pub_interarrival_ms=0.5),
        sections=((section, config),),
        generator=f"tv-scot-{routing}",
    )


# -- the generated module -------------------------------------------------------------------
@dataclass(frozen=True)
class ScotRun:
    event: str
    states: list[dict[str, TlaValue]]
    nx: int
    m: int
    host: TlaValue
    mode: str


def record_scot_runs(
    trace: Trace, routing: str, system_class: type[ScotTraceSystem] = ScotTraceSystem
) -> list[ScotRun]:
    """Run the trace on the observing system; one mapped run per publication."""
    from pubsub_spec.reference.octopia.config import config_of

    section = f"octopia-{routing}"

    def make(t: Trace) -> ScotTraceSystem:
        return system_class(t, config_of(t, section), routing)

    system = run_trace(trace, make).system
    hosts = {e.id: system.host_of(e.publisher) for e in _events(trace)}
    nx, m = len(system.scot.factor.vertices), system.scot.m
    return [
        ScotRun(e, states, nx, m, system.tv_broker(hosts[e]), routing)
        for e, states in system.tv_runs.items()
    ]


def _events(trace: Trace) -> list[Event]:
    return [op.event for op in trace.ops if isinstance(op, Publish)]


def civ_copies(run: ScotRun) -> int:
    """The CIV-N copies (IDR detours, §VII-B) recorded in flight in a run."""
    seen: set[TlaValue] = set()
    for s in run.states:
        msgs = s["msgs"]
        assert isinstance(msgs, frozenset)
        seen.update(m for m in msgs if isinstance(m, Rec) and m["civ"])
    return len(seen)


def scot_module(run: ScotRun, name: str = "TVScot") -> tuple[str, str, int]:
    """The generated module, its cfg and the number of recorded states."""
    defs = f"""TVHost == {tla_literal(run.host)}
TVFn(S) == [b \\in Broker |->
    IF \\E q \\in S : q[1] = b THEN (CHOOSE q \\in S : q[1] = b)[2] ELSE 0]"""
    wrap = {"recv": "TVFn({})", "dlv": "TVFn({})"}
    module = rest_module(name, "ScotRouting", VARIABLES, run.states, defs, wrap)
    cfg = f"""CONSTANTS
    NX = {run.nx}
    M = {run.m}
    Mode = "{run.mode}"
    HostSubs = TRUE
    Bug = "none"
    Host <- TVHost
INIT TVInit
NEXT TVNext
"""
    return module, cfg, len(run.states)


def validate_scot(run: ScotRun, name: str = "TVScot") -> Validation:
    """Validate one publication's run against ScotRouting.tla."""
    module, cfg, n = scot_module(run, name)
    return validate("octopia", name, module, cfg, expect_states=n, max_depth=n + 1)


def oracle_agrees_scot(trace: Trace, routing: str, system_class: type[ScotTraceSystem]) -> bool:
    """The delivery oracle alone: the run's deliveries are exactly the expected ones."""
    from pubsub_spec.reference.octopia.config import config_of

    section = f"octopia-{routing}"
    _, comparison = run_and_compare(
        trace, lambda t: system_class(t, config_of(t, section), routing)
    )
    return comparison.agree
