"""Workloads for OctopiA's checks: a burst of a High Rate Publisher (HRP, §VIII "Dynamic
Notification Routing") scaled down so that Eq. 10 fires and IDR detours, and small explicit
fixtures (Fig. 7's path-3 x K3)."""

from __future__ import annotations

import random

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Timing, Trace, Unsubscribe
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.scot import path_factor

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
