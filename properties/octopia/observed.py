"""TLA+ trace validation of observed OctopiA notification routing (conformance/OBSERVATIONS.md,
"octopia-snr, octopia-idr, tid"): the observations an implementation reports, the built-in's
or an outside program's, are turned into the per-publication records of
properties/octopia/trace_export.py and validated against spec/octopia/ScotRouting.tla by the
same abstraction map (`scot_module`, `validate_scot`), built from the log alone.

Per publication e (ScotRouting.tla models one): Init, then one step per handling, in log order.
A handling is a maximal block of consecutive observations of e at one broker (`deliver`,
`idr`, `Notification` sends): the `publish` block is the spec's `Publish` (the host receives,
delivers and sends its copies); any other block consumes the oldest copy of e in flight to that
broker (`Deliver`: recv + 1, its deliveries, its copies). A copy never followed by a block of
its receiver was handled silently: one `Deliver` step each, after the log's blocks, in send
order. `subs` = the brokers holding a local PRT entry (`prt-add` with `last_hop` null) when e
is published; `dlv` counts `deliver`s. So a copy the model forbids (to a cluster outside the
STCs, back to its sender, a second copy to a broker) or a copy owed and not sent is a step
outside the spec's Next.

Runs outside the map's bound (the workload `scot_trace` builds; `fits` names the bound broken)
are not validated: `validate_observed` returns None.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.properties.octopia.trace_export import ScotRun, validate_scot
from pubsub_spec.properties.thesis.tree_trace import Rec
from pubsub_spec.properties.tracecheck import TlaValue, Validation
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.ops import Publish, Subscribe
from pubsub_spec.reference.octopia.config import config_of
from pubsub_spec.reference.octopia.scot import path_factor

SYSTEMS = ("octopia-snr", "octopia-idr")
BROKER = re.compile(r"B\(([^,()]+),(\d+)\)\Z")
Broker = tuple[int, int]  # the spec's <<position on the path, cluster>>
Copy = tuple[Broker, Broker, frozenset[int]]  # sender, receiver, CIV bits


def fits(run: ObservedRun) -> str | None:
    """None when the run is inside the map's bound, else the bound it breaks (module doc of
    properties/octopia/trace_export.py, "Runs inside the map")."""
    if run.system not in SYSTEMS:
        return f"system {run.system!r} is not one of {', '.join(SYSTEMS)}"
    config = config_of(run.trace, run.system)
    n = len({x for e in config.acyclic_edges for x in e})
    if not 2 <= n <= 3 or tuple(config.acyclic_edges) != path_factor(n).edges:
        return "G_A must be the path a-b(-c) (NX in 2..3)"
    if not 2 <= config.m <= 3:
        return "M must be in 2..3"
    if not config.attach:
        return "clients must be attached explicitly"
    ops = run.trace.ops
    if any(not isinstance(op, (Subscribe, Publish)) for op in ops):
        return "only subscriptions and publications (no unsubscription, churn or advertisement)"
    subs = [op.sub for op in ops if isinstance(op, Subscribe)]
    events = [op.event for op in ops if isinstance(op, Publish)]
    first_pub = next((k for k, op in enumerate(ops) if isinstance(op, Publish)), len(ops))
    if any(isinstance(op, Subscribe) for op in ops[first_pub:]):
        return "every subscription before the first publication"
    if len({e.publisher for e in events}) > 1:
        return "one publisher"
    where = {c: (x, i) for c, x, i in config.attach}
    hosts = [where.get(s.subscriber) for s in subs]
    if None in hosts or len(set(hosts)) != len(hosts):
        return "at most one subscriber per broker, each attached"
    if not all(matches(s, e, run.trace.matching) for s in subs for e in events):
        return "every subscription matches every publication (the spec has no content)"
    return None


def _broker(name: str | None, pos: dict[str, int]) -> Broker:
    m = BROKER.match(name or "")
    if m is None or m.group(1) not in pos:
        raise ValueError(f"observation names {name!r}, not a broker B(x,i) of the trace's SCOT")
    return pos[m.group(1)], int(m.group(2))


def _blocks(log: Sequence[Observed]) -> list[tuple[str, str, list[Observed]]]:
    """The handlings of the log: (event, broker, observations), in log order (module doc)."""
    out: list[tuple[str, str, list[Observed]]] = []
    for o in log:
        ob = o.obs
        ev = ob.event if ob.event is not None else ob.fields.get("event")
        handling = (ob.kind == "send" and ob.name == "Notification") or (
            ob.kind == "state" and ob.name in ("publish", "deliver", "idr")
        )
        if not handling or ev is None:
            continue
        if out and out[-1][:2] == (str(ev), ob.node) and ob.name != "publish":
            out[-1][2].append(o)
        else:
            out.append((str(ev), ob.node, [o]))
    return out


def observed_scot_runs(run: ObservedRun) -> list[ScotRun]:
    """One mapped record per publication of a run inside the bound (module doc)."""
    config = config_of(run.trace, run.system)
    nx, m = len({x for e in config.acyclic_edges for x in e}), config.m
    pos = {x: k + 1 for k, x in enumerate(path_factor(nx).vertices)}
    brokers = [(x, i) for x in range(1, nx + 1) for i in range(m)]
    local: set[Broker] = set()
    runs: dict[str, ScotRun] = {}
    flight: dict[str, Counter[Copy]] = {}
    order: dict[str, list[Copy]] = {}
    recv: dict[str, Counter[Broker]] = {}
    dlv: dict[str, Counter[Broker]] = {}
    subs_at: dict[str, frozenset[TlaValue]] = {}

    def state(ev: str, published: bool) -> dict[str, TlaValue]:
        return {
            "subs": subs_at[ev],
            "msgs": frozenset(
                Rec(src=s, dst=d, civ=frozenset(v)) for (s, d, v), c in flight[ev].items() if c
            ),
            "recv": frozenset((b, min(2, recv[ev][b])) for b in brokers),
            "dlv": frozenset((b, min(2, dlv[ev][b])) for b in brokers),
            "published": published,
        }

    def consume(ev: str, b: Broker) -> None:
        for k, c in enumerate(order[ev]):
            if c[1] == b:
                del order[ev][k]
                flight[ev][c] -= 1
                recv[ev][b] += 1
                return

    for o in run.log:
        ob = o.obs
        if ob.kind == "state" and ob.name == "prt-add" and ob.fields.get("last_hop") is None:
            local.add(_broker(ob.node, pos))
        if ob.kind == "state" and ob.name == "publish" and ob.event is not None:
            subs_at.setdefault(ob.event, frozenset(local))
    for ev, node, obs in _blocks(run.log):
        if ev not in subs_at:
            continue  # copies of an event never published: no run to put them in
        b = _broker(node, pos)
        if obs[0].obs.name == "publish":
            host = b
            flight[ev], order[ev], recv[ev], dlv[ev] = Counter(), [], Counter(), Counter()
            runs[ev] = ScotRun(ev, [state(ev, False)], nx, m, host, run.system[-3:])
            recv[ev][b] += 1
        elif ev not in runs:
            continue
        else:
            consume(ev, b)
        for o in obs:
            ob = o.obs
            if ob.name == "deliver":
                dlv[ev][b] += 1
            elif ob.name == "Notification":
                civ = ob.fields.get("civ") or []
                c: Copy = (b, _broker(ob.to, pos), frozenset(int(x) for x in civ))
                flight[ev][c] += 1
                order[ev].append(c)
        runs[ev].states.append(state(ev, True))
    for ev, r in runs.items():
        while order[ev]:  # copies handled silently (module doc)
            consume(ev, order[ev][0][1])
            r.states.append(state(ev, True))
    for r in runs.values():  # a handling that changes nothing is a stuttering step
        r.states[:] = [s for k, s in enumerate(r.states) if k == 0 or s != r.states[k - 1]]
    return list(runs.values())


def validate_observed(run: ObservedRun) -> list[tuple[str, Validation]] | None:
    """Each publication's validation against ScotRouting.tla, or None when the run is outside
    the map's bound (`fits` names it)."""
    if fits(run) is not None:
        return None
    return [(r.event, validate_scot(r, "TVScotObserved")) for r in observed_scot_runs(run)]
