"""Model-derived step vectors of OctopiA (docs/steps.md, "Model-derived vectors"): every
distinct (state, action) pair of the TLA+ model spec/octopia/MCScotRouting.tla, with its
configurations MCScotRoutingSnr and MCScotRoutingIdr at their CI bound (spec/manifest.json:
NX = 2 regions on the path, M = 4 clusters, the host B(b,0)), becomes one broker's step.

Both actions of ScotRouting.tla are one broker's handler call: `Publish` is the `publish` op at
the host (the host receives, delivers to its own subscriber and sends its copies, §VII), and
`Deliver(m)` is the `Notification` handler of broker m.dst receiving m from m.src with the CIV
m.civ (§VII-A, §VII-B). The model's `Init` (a set of subscribers whose subscriptions are
installed: broadcast in their clusters, CIB bits set at the host, §VI) is many brokers' steps
and no action; the subscription, advertisement and CIB_SET handlers have no model-derived
vectors.

A state maps onto one broker's `pre.json` through the abstraction map of the SCOT trace
validation (properties/octopia/trace_export.py) read backwards:

- model broker <<x, i>> -> `B(x', i)`, x' the x-th vertex of `path_factor(NX)` (a, b, ...);
- a subscriber broker <<x, i>> (in `subs`) -> a client `c-x'i` attached to it with the
  subscription `s-x'i` (sequence number: the broker's place in Label Order, §III-B), matching
  every publication (the model has no content); every broker of cluster i holds it in its PRT
  with the lastHop toward B(x', i) on the path (null at B(x', i) itself: the subgrouping
  broadcast of §VI);
- the publisher `p-model` is a client of the host with one advertisement `a-model`: the host's
  SRT holds its advertisement context (lastHop null) with the CIBs of the model's `STC` on
  (§V, §VI), the host's secondary neighbours its subscription context (lastHop the host, SCB on
  when their cluster has a subscriber, §V step 2, §VI);
- `recv[b]` -> the broker's receptions of the publication `e-model` (`pre.node.received`, I3);
- the copy consumed by `Deliver(m)` -> the `Notification` input from m.src with the CIV m.civ.
  The model counts no hops: a copy's `depth` is its sender's distance from the host in the
  SCOT plus one (the fewest hops it can have taken).

IDR's choice (Eq. 10 abstracted to any set of overloaded links, A9's least-loaded link to any
link) is read back from the successor: the copy carrying a CIV-N names the case and the chosen
link; the context's link status (`pre.context.links`) is set so that the reference's IDR makes
the same choice (§VII-B: case (i) the CIV-N's clusters overloaded, the chosen free iLink least
loaded; case (ii)/(iii) every target iLink overloaded, the chosen aLink least loaded; no CIV-N:
every link free). Each pair is also a check of the model against the reference: the copies the
model adds to `msgs` (destination and CIV), its delivery (`dlv`) and reception count (`recv`)
must be the reference's sends, deliveries and `received`, or the generation stops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pubsub_spec.conformance.steps import model_graph
from pubsub_spec.conformance.steps.base import JSON, Case, Outcome, canonical
from pubsub_spec.reference.octopia.scot import path_factor

available = model_graph.available

MODULE = "octopia/MCScotRouting.tla"
MODELS = {"octopia-snr": "MCScotRoutingSnr", "octopia-idr": "MCScotRoutingIdr"}
BOUND = {"NX": "2", "M": "4"}  # the CI constants of both configurations (spec/manifest.json)

Model = tuple[int, int]  # a model broker <<x, i>>
EVENT, PUBLISHER, ADV = "e-model", "p-model", "a-model"
FREE_RANK: JSON = [0.0, 1.0]  # FREE: CE = 1, q = 0 (§VII-B)
BUSY_RANK: JSON = [1.0, 1.0]  # CE = 1, q = 1: loaded, under theta = 10 (Eq. 10)
OVER_RANK: JSON = [12.0, 3.0]  # CE = 3, q = 4: CE * q = 12 > theta (Eq. 10)


class Scot:
    """The model's SCOT path-NX x K_M and the map of its brokers (module doc)."""

    def __init__(self, nx: int, m: int) -> None:
        self.nx, self.m = nx, m
        self.names = path_factor(nx).vertices
        self.host: Model = (2 if nx >= 2 else 1, 0)  # MCHost

    def name(self, b: Model) -> str:
        return f"B({self.names[b[0] - 1]},{b[1]})"

    def sub(self, b: Model) -> JSON:
        tag = f"{self.names[b[0] - 1]}{b[1]}"
        return {"id": f"s-{tag}", "subscriber": f"c-{tag}", "schema": "q",
                "predicates": [["v", 0, 9]]}  # fmt: skip

    def seq(self, b: Model) -> int:
        return b[1] * self.nx + b[0]  # Label Order (§III-B): cluster-major

    def primary(self, b: Model) -> list[Model]:
        return [(y, b[1]) for y in (b[0] - 1, b[0] + 1) if 1 <= y <= self.nx]

    def secondary(self, b: Model) -> list[Model]:
        return [(b[0], j) for j in range(self.m) if j != b[1]]

    def toward(self, b: Model, z: Model) -> Model | None:
        """The lastHop of z's subscription at b (same cluster): the next broker toward z."""
        if z == b:
            return None
        return (b[0] + (1 if z[0] > b[0] else -1), b[1])

    def distance(self, a: Model, b: Model) -> int:
        return abs(a[0] - b[0]) + (a[1] != b[1])


def adv() -> JSON:
    return {"id": ADV, "publisher": PUBLISHER, "schema": "q", "predicates": [["v", 0, 9]]}


def event(scot: Scot) -> JSON:
    return {"id": EVENT, "publisher": PUBLISHER, "schema": "q", "values": [["v", 5]],
            "seq": scot.nx * scot.m + 1}  # fmt: skip


def stc(scot: Scot, subs: frozenset[Model]) -> list[int]:
    """The host's CIBs: the other clusters with a subscriber (ScotRouting.tla's STC)."""
    return sorted({j for (_, j) in subs if j != scot.host[1]})


def node(scot: Scot, b: Model, subs: frozenset[Model], recv: int) -> JSON:
    """Broker b's protocol state in a model state (the map read backwards, module doc)."""
    prt = []
    for z in sorted(subs, key=lambda z: scot.sub(z)["id"]):
        if z[1] == b[1]:
            last = scot.toward(b, z)
            prt.append({"sub": scot.sub(z), "last_hop": None if last is None else scot.name(last)})
    srt: list[JSON] = []
    if b == scot.host:
        srt = [{"adv": adv(), "host_ci": b[1], "last_hop": None, "stc": stc(scot, subs),
                "scb": False}]  # fmt: skip
    elif b[0] == scot.host[0]:
        scb = any(z[1] == b[1] for z in subs)
        srt = [{"adv": adv(), "host_ci": scot.host[1], "last_hop": scot.name(scot.host),
                "stc": [], "scb": scb}]  # fmt: skip
    return {"name": scot.name(b), "srt": srt, "prt": prt,
            "received": {EVENT: recv} if recv else {}}  # fmt: skip


def context(scot: Scot, b: Model, subs: frozenset[Model], links: dict[str, JSON],
            publish: bool) -> JSON:  # fmt: skip
    mine = scot.sub(b)
    status = [[mine["id"], mine["subscriber"], scot.seq(b), True]] if b in subs else []
    return {"matching": "strict", "m": scot.m,
            "primary": [scot.name(x) for x in scot.primary(b)],
            "secondary": [[x[1], scot.name(x)] for x in scot.secondary(b)],
            "links": links, "adverts": [adv()] if publish else [], "status": status}  # fmt: skip


def link_status(scot: Scot, b: Model, civ_in: frozenset[int],
                copies: set[tuple[Model, frozenset[int]]]) -> dict[str, JSON]:  # fmt: skip
    """The link status under which the reference's IDR sends the model's copies (module doc):
    every link free unless a copy carries a CIV-N."""
    neighbours = [*scot.primary(b), *scot.secondary(b)]
    rank = {x: FREE_RANK for x in neighbours}
    over: set[Model] = set()
    carriers = [(dst, civ) for dst, civ in copies if civ]
    if len(carriers) > 1:
        raise AssertionError(f"ScotRouting.tla sends two CIV-N copies from {scot.name(b)}")
    if carriers:
        (dst, civ), targets = carriers[0], civ_in - {b[1]}
        # case (i) (dst an iLink): the CIV-N's clusters overloaded, dst the least loaded;
        # case (ii)/(iii) (dst an aLink): every target iLink overloaded, dst the least loaded
        over = {(b[0], j) for j in (civ if dst[0] == b[0] else targets)}
        rank = {x: OVER_RANK if x in over else BUSY_RANK for x in neighbours}
        rank[dst] = FREE_RANK
    return {scot.name(x): {"overloaded": x in over, "rank": rank[x]}
            for x in sorted(neighbours, key=scot.name)}  # fmt: skip


Apply = Callable[[JSON, JSON], Outcome]


def cases(system: str, apply: Apply, graph: model_graph.Graph | None = None) -> Iterator[Case]:
    """The distinct model-derived cases of `system` (octopia-snr or octopia-idr); `apply`: the
    system's step (the reference's handler), checked against the model's successor on each."""
    model = MODELS[system]
    if graph is None:
        graph = model_graph.export(MODULE, f"octopia/{model}.cfg", BOUND)
    scot = Scot(int(BOUND["NX"]), int(BOUND["M"]))
    seen: set[str] = set()
    k = 0
    for a, z, action in graph.edges:
        s, t = graph.states[a], graph.states[z]
        subs: frozenset[Model] = s["subs"]
        if action == "Publish":
            b, civ, handler = scot.host, frozenset(stc(scot, subs)), "publish"
            new = t["msgs"]
        elif action == "Deliver":
            (m,) = s["msgs"] - t["msgs"]  # the copy consumed (a copy is sent once, NoLoop)
            b, civ, handler = m["dst"], m["civ"], "Notification"
            new = t["msgs"] - (s["msgs"] - {m})
        else:
            raise AssertionError(f"ScotRouting.tla: an action {action} this map does not know")
        copies = {(c["dst"], c["civ"]) for c in new}
        if any(c["src"] != b for c in new):
            raise AssertionError(f"{action} at {scot.name(b)} sends from another broker")
        links = link_status(scot, b, civ, copies)
        pre: JSON = {"node": node(scot, b, subs, s["recv"][b]),
                     "context": context(scot, b, subs, links, handler == "publish")}  # fmt: skip
        if handler == "publish":
            step_input: JSON = {"op": "publish", "event": event(scot)}
        else:
            step_input = {"type": "Notification", "from": scot.name(m["src"]),
                          "event": event(scot), "civ": sorted(civ), "tid": None,
                          "depth": scot.distance(scot.host, m["src"]) + 1}  # fmt: skip
        key = canonical([pre, step_input])
        if key in seen:
            continue
        seen.add(key)
        check(scot, b, action, s, t, copies, apply(pre, step_input))
        yield Case(handler, f"model-{model}-{k:03d}", pre, step_input)
        k += 1


def check(scot: Scot, b: Model, action: str, s: dict[str, Any], t: dict[str, Any],
          copies: set[tuple[Model, frozenset[int]]], outcome: Outcome) -> None:  # fmt: skip
    """The model's successor and the reference's outcome agree: the same copies (destination,
    CIV), the same delivery at b, the same reception count (saturating at the model's Cap)."""
    where = f"ScotRouting.tla's {action} at {scot.name(b)} (subs {sorted(s['subs'])})"
    if outcome.invalid is not None:
        raise AssertionError(f"{where}: the reference refuses it: {outcome.invalid}")
    got = {(x["to"], tuple(x["fields"]["message"]["civ"])) for x in outcome.sends}
    want = {(scot.name(dst), tuple(sorted(civ))) for dst, civ in copies}
    if got != want:
        raise AssertionError(f"{where}: the model sends {sorted(want)}; "
                             f"the reference {sorted(got)}")  # fmt: skip
    delivered = bool(outcome.post["delivered"])
    if delivered != (t["dlv"][b] > s["dlv"][b]):
        raise AssertionError(f"{where}: the model delivers {not delivered}; the reference "
                             f"{delivered}")  # fmt: skip
    received = min(2, outcome.post["node"]["received"].get(EVENT, 0))
    if received != t["recv"][b]:
        raise AssertionError(f"{where}: the model counts {t['recv'][b]} receptions; the "
                             f"reference {received}")  # fmt: skip
