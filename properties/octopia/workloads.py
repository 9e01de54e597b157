"""Workloads for OctopiA's checks: a burst of a High Rate Publisher (HRP, §VIII "Dynamic
Notification Routing") scaled down so that Eq. 10 fires and IDR detours, and small explicit
fixtures (Fig. 7's path-3 x K3, its four IDR cases as constructed scenarios)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Timing, Trace, Unsubscribe
from pubsub_spec.reference.octopia.advertisements import Advertisement
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.messages import Message, Notification
from pubsub_spec.reference.octopia.scot import Broker, path_factor
from pubsub_spec.reference.octopia.system import OctopiaSystem

STOCK = Schema(
    "stock",
    (Attribute("symbol", "int", 0, 499), Attribute("price", "float", 0.0, 1000.0)),
)
FIG7 = path_factor(3)


def burst_trace(
    seed: int,
    n_subs: int = 18,
    n_events: int = 300,
    interarrival_ms: float = 0.25,
    sections: tuple[str, ...] = ("octopia-snr", "octopia-idr", "tid"),
) -> Trace:
    """One HRP at B(b,2) of path-3 x K3 and n_subs subscribers spread over every other broker
    (every cluster a TC, §VIII); the HRP's events come every `interarrival_ms`. Link service
    1 ms and ω = 5 ms make its host's output queues overload (Eq. 10, θ = 10)."""
    rng = random.Random(f"{seed}:octopia-burst")
    brokers = [(x, i) for i in range(3) for x in FIG7.vertices if (x, i) != ("b", 2)]
    attach = [("n0", "b", 2)]
    ops: list[Op] = []
    seq = 0
    subs: list[str] = []
    for k in range(n_subs):
        x, i = brokers[k % len(brokers)]
        name = f"n{k + 1}"
        attach.append((name, x, i))
        lo = float(rng.randint(0, 400))
        preds = (Predicate("price", lo, min(1000.0, lo + rng.choice((100.0, 600.0)))),)
        seq += 1
        ops.append(Subscribe(seq, Subscription(f"s{k}", name, "stock", preds)))
        subs.append(f"s{k}")
    for e in range(n_events):
        seq += 1
        vals = (("price", round(rng.uniform(0.0, 1000.0), 2)), ("symbol", rng.randint(0, 499)))
        ops.append(Publish(seq, Event(f"e{e}", "n0", "stock", vals)))
        if e == n_events // 2:
            seq += 1
            ops.append(Unsubscribe(seq, subs[0]))
    config = OctopiaConfig(
        acyclic_edges=FIG7.edges,
        m=3,
        link_service_ms=1.0,
        window_ms=5.0,
        attach=tuple(attach),
    )
    trace = Trace(
        schemas=(STOCK,),
        ops=tuple(ops),
        initial_nodes=n_subs + 1,
        seed=seed,
        timing=Timing(sub_interarrival_ms=50.0, pub_interarrival_ms=interarrival_ms),
        generator="octopia-burst",
        trace_id=f"octopia-burst-{seed}",
    )
    for s in sections:
        trace = trace.with_section(s, config)
    return trace


# -- Fig. 7 (§VII-B): the four IDR cases, each a constructed scenario --------------------------
FIG7_HOST: Broker = ("b", 2)
_Q = Schema("q", (Attribute("v", "int", 0, 100),))


class Recording(OctopiaSystem):
    """OctopiA recording each notification copy (src, dst, CIV)."""

    def __init__(self, trace: Trace, config: OctopiaConfig, routing: str) -> None:
        self.sent: list[tuple[Broker, Broker, int]] = []
        super().__init__(trace, config, routing)

    def send(self, src: Broker, dst: Broker, msg: Message) -> None:
        if isinstance(msg, Notification):
            self.sent.append((src, dst, msg.civ))
        super().send(src, dst, msg)

    def brokers(self) -> int:
        """Brokers that processed the notification, the publisher's host included."""
        return len({b for (_, b) in self.receptions})

    def hops_to(self, target: Broker) -> int:
        parent = {dst: src for src, dst, _ in self.sent}
        hops, b = 0, target
        while b != FIG7_HOST:
            b, hops = parent[b], hops + 1
        return hops

    def civ_ns(self) -> list[tuple[Broker, Broker, int]]:
        return [c for c in self.sent if c[2]]


@dataclass(frozen=True)
class Fig7Case:
    """S1..S4 at `place`, all interested in P's one notification (P at B(b,2)); `forced`
    links overloaded (config `forced_links`); `loads`: (src, dst, q) queues of the last window
    (10 out, q in and still queued), so that A9's "least overloaded" ranks them. The paper's
    counts: IMs and brokers for IDR and SNR (None: not stated)."""

    place: tuple[Broker, ...]
    forced: tuple[tuple[str, int, str, int], ...]
    loads: tuple[tuple[Broker, Broker, int], ...] = ()
    paper_ims: tuple[int, int] = (0, 0)
    paper_brokers: tuple[int, int] | None = None

    def run(self, routing: str) -> Recording:
        return fig7_run(self, routing)


A11_PLACE: tuple[Broker, ...] = (("c", 0), ("c", 1), ("a", 2), ("c", 2))
FIG7_CASES: dict[str, Fig7Case] = {
    "a": Fig7Case(A11_PLACE, (("b", 2, "b", 0),), paper_ims=(6, 6)),
    "b": Fig7Case(
        (("c", 0), ("c", 1), ("b", 1), ("c", 2)),
        (("b", 2, "b", 0), ("b", 2, "b", 1)),
        paper_ims=(4, 5),
        paper_brokers=(4, 6),
    ),
    "c": Fig7Case(
        A11_PLACE,
        (("b", 2, "b", 0), ("b", 1, "b", 0), ("c", 1, "c", 0)),
        paper_ims=(5, 6),
        paper_brokers=(6, 7),
    ),
    "d": Fig7Case(
        (("c", 0), ("c", 1), ("c", 2), ("c", 2)),
        (("b", 2, "a", 2), ("b", 2, "c", 2), ("b", 2, "b", 0), ("b", 2, "b", 1)),
        loads=((("b", 2), ("b", 0), 30), (("b", 2), ("b", 1), 20)),
        paper_ims=(5, 5),
    ),
}


def fig7_run(case: Fig7Case, routing: str) -> Recording:
    """Path-3 x K3 (Fig. 7): the subscriptions, P's advertisement, then one notification; the
    overloads act on IDR only (SNR never reads the LST)."""
    attach = (("P", *FIG7_HOST), *((f"S{k + 1}", x, i) for k, (x, i) in enumerate(case.place)))
    cfg = OctopiaConfig(
        acyclic_edges=FIG7.edges,
        m=3,
        attach=attach,
        implicit_advertisements=False,
        forced_links=case.forced if routing == "idr" else (),
    )
    s = Recording(Trace(schemas=(_Q,), ops=(), initial_nodes=1), cfg, routing)
    for k in range(len(case.place)):
        s.subscribe(Subscription(f"s{k + 1}", f"S{k + 1}", "q", (Predicate("v", 0, 10),)), k)
        s.run_to_quiescence()
    s.advertise("P", Advertisement("a", "P", "q", (Predicate("v", 5, 5),)))
    s.run_to_quiescence()
    w = cfg.window_ms
    t1 = math.floor(s.engine.now / w) * w
    for src, dst, q in case.loads:
        log = s.queue(src, dst).log
        log.extend([(t1 - 1.5 * w, t1 - 0.5 * w)] * 10 + [(t1 - 0.5 * w, t1 + 1000.0)] * q)
    s.publish(Event("e", "P", "q", (("v", 5),)), 100)
    s.run_to_quiescence()
    return s
