"""All nine simulated systems side by side (docs/comparison.md): every registered system
(reference/registry.py, each with its default variant; the thesis with its default, unicast,
delivery) on the same workloads at the same sizes, with the same measures.

Workloads: the conformance generators (conformance/generators.py) `zipf` (the thesis' Zipf
workload, thesis §4.1.2, scaled to the profile), `uniform` (uniform values on two schemas, with
unsubscriptions) and `octopia-stock` (OctopiA §VIII's stock quotes, with advertisements), at the
generators' profiles (`PROFILES`: nodes, subscriptions, publications), a few seeds each.

Measures, per (system, workload, profile), pooled over the seeds:
- messages, hops and bytes per subscription and per publication: each declared message type is
  charged to the subscriptions or to the publications by the family's `SUBSCRIPTION` and
  `DISSEMINATION` sets (conformance/protocol_rules/<family>.py, the cost envelope's
  classification); other types (advertisements, removals, churn handovers) are "other".
  Messages are the sends (`Metrics.sends`: a message routed over Pastry counts once), hops the
  network messages they took (`Metrics.messages`: one per overlay hop; equal to the sends for the
  systems that count every overlay hop as a send), bytes the bytes of those hops (D-MSG);
- delivery latency p50/p95/p99 (ms, from the publication) and the median installation latency
  of a subscription;
- storage per node, mean and max: the live stored entries at the end of the run, counted from
  the system's `state` observations (reference/sim/observe.py; conformance/OBSERVATIONS.md),
  what is counted per system in `STORAGE`;
- busiest node over the mean: network messages sent per node (every node the system has at the
  end, brokers or servers, idle ones included), max over mean;
- oracle: every run's deliveries compared with the oracle (agree / DISAGREE); a system that
  lacks a feature the workload needs is `skipped (reason)`.

Run: `python -m benchmarks.bench_compare [--quick] [--jobs N] [--write docs/comparison.md]`, or
`pubsub-spec figures --only CMP` (`write_figures`: `comparison.md` in the output folder; scale
`small` is the quick plan, `full` the default one). tests/test_bench_compare.py runs the core at
the generators' tiny profile.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import resource
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pubsub_spec.conformance.generators import GENERATORS, PROFILES
from pubsub_spec.conformance.lifeline import WorkerPool
from pubsub_spec.conformance.observed import claim_of
from pubsub_spec.conformance.protocol_rules import DISSEMINATION, SUBSCRIPTION
from pubsub_spec.properties.contract import FigureOptions, FiguresWritten
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.observe import SEND, Observation
from pubsub_spec.reference.sim.run import Driver, compare
from pubsub_spec.reference.sim.system import missing_features

WORKLOADS: tuple[str, ...] = ("zipf", "uniform", "octopia-stock")
DEFAULT_PROFILES: tuple[str, ...] = ("medium", "large")
DEFAULT_SEEDS: tuple[int, ...] = (1, 2, 3)
QUICK_PROFILES: tuple[str, ...] = ("small",)
QUICK_SEEDS: tuple[int, ...] = (1,)

# What `storage` counts per system: the state observations that add and remove one live entry
# at a node (conformance/OBSERVATIONS.md, the family sections).
STORAGE: dict[str, str] = {
    "thesis": "subscription points stored at 2d-tree leaves (`store` - `remove`; a `split` "
    "hands its points to its children; leaf-set replicas are not reported, so not counted)",
    "kyra": "proxy entries (`proxy-store` - `proxy-remove`) plus routing-table filter entries "
    "over all its trees (`filter-add` - `filter-remove`)",
    "siena": "own subscriptions (`sub-store` - `sub-remove`) plus routing-table filter entries "
    "(`filter-add` - `filter-remove`)",
    "mcgroups": "subscriptions at their own server (`sub-store` - `sub-remove`); the "
    "event-to-group map, the same at every server, is not counted",
    "octopia-snr": "PRT entries (`prt-add` - `prt-remove`) at each broker; SRT "
    "(advertisement) entries not counted",
    "octopia-idr": "as octopia-snr",
    "tid": "PRT entries, one per (subscription, TID) (`prt-add` - `prt-remove`) at each "
    "broker; SRT entries not counted",
    "tam": "Scribe child records (`scribe-child-added` - `scribe-child-removed`, a "
    "`scribe-left` drops the key's) plus the subscriber's own registrations (`tam-register` - "
    "`tam-unregister`: one per index key)",
    "tam-basic": "subscriptions stored at key homes (`tam-store` - `tam-unstore`)",
}

_ADD_REMOVE: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    # (add state, remove state, the fields that, with node and sub, name one entry)
    "kyra": (("proxy-store", "proxy-remove", ()), ("filter-add", "filter-remove",
             ("tree", "direction", "proxy"))),
    "siena": (("sub-store", "sub-remove", ()), ("filter-add", "filter-remove", ("direction",))),
    "mcgroups": (("sub-store", "sub-remove", ()),),
    "octopia-snr": (("prt-add", "prt-remove", ()),),
    "octopia-idr": (("prt-add", "prt-remove", ()),),
    "tid": (("prt-add", "prt-remove", ("tid",)),),
    "tam": (("tam-register", "tam-unregister", ("key",)),),
    "tam-basic": (("tam-store", "tam-unstore", ("key",)),),
}  # fmt: skip

Entry = tuple[object, ...]


class Storage:
    """Live stored entries per node, from a system's state observations (`STORAGE`). The thesis'
    zone handovers on churn (`host`) are not followed: the compared workloads have no churn."""

    def __init__(self, system: str) -> None:
        self.system = system
        self.live: dict[str, set[Entry]] = defaultdict(set)
        # the thesis: (tree, bits) -> {(sub, segment): node}, so that a split empties its leaf
        self.leaves: dict[tuple[object, object], dict[Entry, str]] = defaultdict(dict)
        self.rules = {
            name: (add, key)
            for add_name, remove_name, key in _ADD_REMOVE.get(system, ())
            for name, add in ((add_name, True), (remove_name, False))
        }

    def __call__(self, obs: Observation) -> None:
        if obs.kind == SEND:
            return
        f = obs.fields
        if self.system == "thesis":  # thesis §3.2.2, §3.3: points live at leaves
            leaf = (f.get("tree"), f.get("bits"))
            if obs.name == "store":
                self.leaves[leaf][(obs.sub, f.get("segment"))] = obs.node
            elif obs.name == "remove":
                self.leaves[leaf].pop((obs.sub, f.get("segment")), None)
            elif obs.name == "split":
                self.leaves.pop(leaf, None)
            return
        if self.system == "tam" and obs.name in ("scribe-child-added", "scribe-child-removed"):
            entry: Entry = ("child", f.get("key"), f.get("child"))
            if obs.name == "scribe-child-added":
                self.live[obs.node].add(entry)
            else:
                self.live[obs.node].discard(entry)
            return
        if self.system == "tam" and obs.name == "scribe-left":  # Scribe §2.2.2: tree state gone
            key = f.get("key")
            self.live[obs.node] = {
                e for e in self.live[obs.node] if not (e[0] == "child" and e[1] == key)
            }
            return
        rule = self.rules.get(obs.name)
        if rule is None:
            return
        add, fields = rule
        entry = (obs.name if add else self._add_name(obs.name), obs.sub,
                 *(_hashable(f.get(k)) for k in fields))  # fmt: skip
        if add:
            self.live[obs.node].add(entry)
        else:
            self.live[obs.node].discard(entry)

    def _add_name(self, remove_name: str) -> str:
        for add_name, rm, _ in _ADD_REMOVE[self.system]:
            if rm == remove_name:
                return add_name
        raise KeyError(remove_name)

    def per_node(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for node, entries in self.live.items():
            out[node] += len(entries)
        for points in self.leaves.values():
            for node in points.values():
                out[node] += 1
        return out


def _hashable(v: object) -> object:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    return v


@dataclass
class Run:
    """One system on one trace."""

    system: str
    workload: str
    profile: str
    seed: int
    skipped: str = ""
    agree: bool = True
    subscribes: int = 0
    publishes: int = 0
    sends: dict[str, int] = field(default_factory=dict)  # side -> Metrics.sends
    hops: dict[str, int] = field(default_factory=dict)  # side -> Metrics.messages
    bytes: dict[str, int] = field(default_factory=dict)  # side -> Metrics.bytes
    observed_sends: dict[str, int] = field(default_factory=dict)  # side -> send observations
    latency_ms: list[float] = field(default_factory=list)
    install_ms: list[float] = field(default_factory=list)
    storage: list[int] = field(default_factory=list)  # per node, every node
    sent: list[int] = field(default_factory=list)  # network messages sent per node
    active_subs: int = 0  # subscriptions not removed by the end
    seconds: float = 0.0


SIDES = ("subscribe", "publish", "other")


def side_of(system: str) -> Callable[[str], str]:
    """A message type's side: the family's SUBSCRIPTION / DISSEMINATION sets of the system's
    claim (conformance/protocol_rules/<family>.py), else "other"."""
    claim = claim_of(SYSTEMS[system].default_variant) or system
    sub = SUBSCRIPTION.get(claim, frozenset())
    pub = DISSEMINATION.get(claim, frozenset())

    def side(kind: str) -> str:
        return "publish" if kind in pub else "subscribe" if kind in sub else "other"

    return side


def make_trace(workload: str, profile: str, seed: int) -> Trace:
    return GENERATORS[workload](seed, 0, profile)


def run_one(system: str, workload: str, profile: str, seed: int) -> Run:
    """Run the system's default variant on the workload's trace, with an observer that counts
    sends by side and stored entries (module doc)."""
    t0 = time.perf_counter()
    trace = make_trace(workload, profile, seed)
    info = SYSTEMS[system]
    run = Run(system, workload, profile, seed)
    reason = missing_features(trace, info.features)
    if reason is not None:
        run.skipped = reason
        return run
    side = side_of(system)
    storage = Storage(system)
    observed: Counter[str] = Counter()

    def observer(obs: Observation) -> None:
        if obs.kind == SEND:
            observed[side(obs.name)] += 1
        else:
            storage(obs)

    sim = info.variant(info.default_variant).make(trace)
    sim.observer = observer
    driver = Driver(trace, sim)
    for op in trace.ops:
        driver.apply(op)
    result = driver.finish()
    run.agree = compare(expected_deliveries(trace), result.deliveries).agree
    run.subscribes = sum(isinstance(op, Subscribe) for op in trace.ops)
    run.publishes = sum(isinstance(op, Publish) for op in trace.ops)
    run.active_subs = run.subscribes - sum(isinstance(op, Unsubscribe) for op in trace.ops)
    m = result.metrics
    for s in SIDES:
        run.sends[s] = sum(n for k, n in m.sends.items() if side(k) == s)
        run.hops[s] = sum(n for k, n in m.messages.items() if side(k) == s)
        run.bytes[s] = sum(n for k, n in m.bytes.items() if side(k) == s)
        run.observed_sends[s] = observed[s]
    run.latency_ms = list(m.delivery_latency_ms)
    run.install_ms = list(m.install_latency_ms)
    per_node: Counter[str] = Counter()
    for (peer, _kind), n in m.peer_messages.items():
        per_node[peer] += n
    stored = storage.per_node()
    nodes = max(sim.peer_count(), len(per_node), len(stored))
    run.sent = _padded(per_node.values(), nodes)
    run.storage = _padded(stored.values(), nodes)
    run.seconds = time.perf_counter() - t0
    return run


def _padded(values: Iterable[int], n: int) -> list[int]:
    out = sorted(values, reverse=True)
    return out + [0] * (n - len(out))


def percentile(xs: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in (0, 100]); NaN for no values."""
    if not xs:
        return math.nan
    ordered = sorted(xs)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass(frozen=True)
class Row:
    """One (system, workload, profile), pooled over its seeds."""

    system: str
    workload: str
    profile: str
    seeds: int
    skipped: str
    disagree: int  # runs that disagreed with the oracle
    subscribes: int
    publishes: int
    sends: dict[str, int]
    hops: dict[str, int]
    bytes: dict[str, int]
    p50: float
    p95: float
    p99: float
    install_p50: float
    storage_mean: float
    storage_max: int
    busiest: float  # mean over seeds of (max / mean) network messages sent per node
    seconds: float
    nodes: int  # the nodes the per-node figures are over (the largest run's)

    def per(self, what: str, side: str) -> float:
        table = {"msgs": self.sends, "hops": self.hops, "bytes": self.bytes}[what]
        ops = self.subscribes if side == "subscribe" else self.publishes
        return table[side] / ops if ops else 0.0

    @property
    def oracle(self) -> str:
        if self.skipped:
            return f"skipped ({self.skipped})"
        return "agree" if not self.disagree else f"DISAGREE ({self.disagree} of {self.seeds})"


def aggregate(runs: Sequence[Run]) -> list[Row]:
    """Rows in (profile, workload, system) order of first appearance."""
    groups: dict[tuple[str, str, str], list[Run]] = {}
    for r in runs:
        groups.setdefault((r.profile, r.workload, r.system), []).append(r)
    rows = []
    for (profile, workload, system), rs in groups.items():
        skipped = next((r.skipped for r in rs if r.skipped), "")
        done = [r for r in rs if not r.skipped]
        lat = [x for r in done for x in r.latency_ms]
        inst = [x for r in done for x in r.install_ms]
        store = [x for r in done for x in r.storage]
        ratios = [max(r.sent) / (sum(r.sent) / len(r.sent)) for r in done if sum(r.sent)]
        rows.append(
            Row(
                system,
                workload,
                profile,
                len(rs),
                skipped,
                sum(not r.agree for r in done),
                sum(r.subscribes for r in done),
                sum(r.publishes for r in done),
                {s: sum(r.sends[s] for r in done) for s in SIDES},
                {s: sum(r.hops[s] for r in done) for s in SIDES},
                {s: sum(r.bytes[s] for r in done) for s in SIDES},
                percentile(lat, 50),
                percentile(lat, 95),
                percentile(lat, 99),
                percentile(inst, 50),
                sum(store) / len(store) if store else math.nan,
                max(store, default=0),
                sum(ratios) / len(ratios) if ratios else math.nan,
                sum(r.seconds for r in rs),
                max((len(r.sent) for r in done), default=0),
            )
        )
    return rows


def _n(v: float) -> str:
    if math.isnan(v):
        return "-"
    if float(v).is_integer():
        return f"{int(v):,}"
    if abs(v) < 10:
        return f"{v:.2f}"
    return f"{v:.1f}" if abs(v) < 100 else f"{v:,.0f}"


TRAFFIC_HEAD = (
    "| workload | system | oracle | sub: msgs (hops) | sub: bytes | pub: msgs (hops) "
    "| pub: bytes | other msgs/op |"
)
LOAD_HEAD = (
    "| workload | system | latency p50 / p95 / p99 | install p50 | nodes "
    "| storage/node mean (max) | busiest/mean |"
)


def _columns(head: str) -> int:
    return head.count(" | ") + 1


def traffic_table(rows: Sequence[Row]) -> list[str]:
    """Messages (hops) and bytes per subscription and per publication, other messages per op."""
    out = [TRAFFIC_HEAD, "|" + "---|" * _columns(TRAFFIC_HEAD)]
    for r in rows:
        if r.skipped:
            out.append(f"| {r.workload} | {r.system} | {r.oracle} |" + " - |" * 5)
            continue
        ops = r.subscribes + r.publishes
        cells = []
        for side in ("subscribe", "publish"):
            cells.append(f"{_n(r.per('msgs', side))} ({_n(r.per('hops', side))})")
            cells.append(_n(r.per("bytes", side)))
        cells.append(_n(r.sends["other"] / ops if ops else 0.0))
        out.append(f"| {r.workload} | {r.system} | {r.oracle} | " + " | ".join(cells) + " |")
    return out


def load_table(rows: Sequence[Row]) -> list[str]:
    """Delivery latency percentiles, installation latency, storage per node, busiest/mean."""
    out = [LOAD_HEAD, "|" + "---|" * _columns(LOAD_HEAD)]
    for r in rows:
        if r.skipped:
            out.append(f"| {r.workload} | {r.system} |" + " - |" * 5)
            continue
        cells = [
            " / ".join(_n(x) for x in (r.p50, r.p95, r.p99)),
            _n(r.install_p50),
            str(r.nodes),
            f"{_n(r.storage_mean)} ({_n(float(r.storage_max))})",
            _n(r.busiest),
        ]
        out.append(f"| {r.workload} | {r.system} | " + " | ".join(cells) + " |")
    return out


def profile_line(profile: str) -> str:
    nodes, subs, pubs = PROFILES[profile]
    return f"`{profile}`: {nodes} nodes, {subs} subscriptions, {pubs} publications"


def tables(rows: Sequence[Row], profiles: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in profiles:
        mine = [r for r in rows if r.profile == p]
        out += [f"### Profile {profile_line(p)}", "", "Traffic per subscription (sub) and per "
                "publication (pub); `other`: per op of either kind:", ""]  # fmt: skip
        out += traffic_table(mine)
        out += ["", "Latency (ms), storage (entries per node), load:", ""]
        out += load_table(mine)
        out.append("")
    return out


def run_all(
    profiles: Sequence[str],
    seeds: Sequence[int],
    jobs: int = 1,
    systems: Sequence[str] | None = None,
    workloads: Sequence[str] = WORKLOADS,
) -> list[Run]:
    names = list(systems if systems is not None else SYSTEMS)
    tasks = [(s, w, p, k) for p in profiles for w in workloads for s in names for k in seeds]
    if jobs <= 1:
        return [run_one(*t) for t in tasks]
    # the slowest tasks first (the larger profiles; TID and the thesis), so the tail is short
    slow = {"tid": 0, "thesis": 1}
    order = sorted(
        range(len(tasks)), key=lambda i: (-PROFILES[tasks[i][2]][0], slow.get(tasks[i][0], 2))
    )
    # workers that die with this process, however it dies (as `pubsub-spec figures --jobs`)
    with WorkerPool(jobs) as pool:
        done = list(pool.map(run_one, *zip(*(tasks[i] for i in order), strict=True)))
    by_index = dict(zip(order, done, strict=True))
    return [by_index[i] for i in range(len(tasks))]


def machine_note() -> str:
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )


def _extremes(rows: Sequence[Row], key: Callable[[Row], float]) -> tuple[Row, Row, list[str]]:
    """The lowest non-zero and the highest row of a measure, and the systems at zero."""
    done = [r for r in rows if not r.skipped and not math.isnan(key(r))]
    zero = [r.system for r in done if key(r) == 0]
    ordered = sorted((r for r in done if key(r) != 0), key=key)
    return ordered[0], ordered[-1], zero


MEASURES: tuple[tuple[str, Callable[[Row], float]], ...] = (
    ("hops/pub", lambda r: r.per("hops", "publish")),
    ("hops/sub", lambda r: r.per("hops", "subscribe")),
    ("latency p50", lambda r: r.p50),
    ("storage/node mean", lambda r: r.storage_mean),
    ("busiest/mean", lambda r: r.busiest),
)


def findings(rows: Sequence[Row], profile: str) -> list[str]:
    """Sentences read off the rows of one profile: the lowest and highest system per measure."""
    out = []
    for workload in dict.fromkeys(r.workload for r in rows if r.profile == profile):
        mine = [r for r in rows if r.profile == profile and r.workload == workload]
        parts = []
        for label, key in MEASURES:
            lo, hi, zero = _extremes(mine, key)
            none = f" ({', '.join(zero)}: none)" if zero else ""
            parts.append(
                f"{label} lowest {lo.system} {_n(key(lo))}{none}, highest {hi.system} {_n(key(hi))}"
            )
        out.append(f"- `{workload}`: " + "; ".join(parts) + ".")
    return out


# The pairs the papers compare (each paper against its own baseline), as ratios.
PAIRS: tuple[tuple[str, str, str], ...] = (
    ("kyra", "siena", "Cao & Singh §III-§V: Kyra against filter-based routing"),
    ("mcgroups", "siena", "Cao & Singh §II: multicast groups against filter-based routing"),
    ("octopia-snr", "tid", "OctopiA §VIII: OctopiA against TID"),
    ("tam", "tam-basic", "Tam et al. §3.2-§3.3: Scribe trees against the home-node scheme"),
)


def pair_table(rows: Sequence[Row], profile: str) -> list[str]:
    """Ratios a / b of the measures, per pair and workload, at one profile."""
    head = (
        "| a / b | workload | sub msgs | sub bytes | pub hops | pub bytes | latency p50 "
        "| storage | busiest |"
    )
    out = [head, "|---|---|---|---|---|---|---|---|---|"]
    by = {(r.workload, r.system): r for r in rows if r.profile == profile and not r.skipped}
    keys: tuple[Callable[[Row], float], ...] = (
        lambda r: r.per("msgs", "subscribe"),
        lambda r: r.per("bytes", "subscribe"),
        lambda r: r.per("hops", "publish"),
        lambda r: r.per("bytes", "publish"),
        lambda r: r.p50,
        lambda r: r.storage_mean,
        lambda r: r.busiest,
    )
    for a, b, _why in PAIRS:
        for w in dict.fromkeys(r.workload for r in rows):
            ra, rb = by.get((w, a)), by.get((w, b))
            if ra is None or rb is None:
                continue
            cells = [
                f"{k(ra) / k(rb):.2f}" if k(rb) else ("-" if not k(ra) else "inf") for k in keys
            ]
            out.append(f"| {a} / {b} | {w} | " + " | ".join(cells) + " |")
    return out


def classification() -> list[str]:
    out = ["| system | subscription side | publication side | other |", "|---|---|---|---|"]
    for name, info in SYSTEMS.items():
        side = side_of(name)
        kinds = [t.name for t in info.message_types]
        cols = [", ".join(f"`{k}`" for k in kinds if side(k) == s) or "-" for s in SIDES]
        out.append(f"| {name} | " + " | ".join(cols) + " |")
    return out


READING = """\
What differs, and why. The mechanisms below are the papers'; which system comes out cheapest
on a measure is read off the tables (the lists above), not asserted here.

- **Publication cost.** The thesis system (Li, UBC MSc thesis 2008) finds the matching
  subscriptions by probing every zone of the 2d-tree of each attribute the event has that
  overlaps the event's target area [min, v] x [v, max] (thesis §3.2, §3.4.1, Program 3.3),
  each probe routed over Pastry (hops exceed messages: a route takes several overlay hops),
  then sends one delivery per matched subscriber (§3.4.3). It pays per attribute: the
  `octopia-stock` quotes have ten attributes, the `zipf` events four, the `uniform` events
  two. The broker systems forward an event only toward servers with a matching filter:
  Siena and Kyra (Cao & Singh, "Efficient Event Routing in Content-based Publish-Subscribe
  Service Networks", INFOCOM 2004, §II.A, §III) along acyclic routing trees, OctopiA and TID
  (Shafique, "Adaptive Content-based Routing using Subscription Subgrouping in Structured
  Overlays", arXiv:1604.06853, §VII; TID as its §II describes it) along the publisher's tree
  of the SCOT. Multicast groups (Cao & Singh §II.B) send the event to every member of its
  group, interested or not. Tam et al. ("Building Content-based Publish/Subscribe Systems
  with Distributed Hash Tables", DBISP2P 2003, §3.2-§3.3) route the event over Pastry to the
  home of an index key it specifies; `tam` then multicasts it down the key's Scribe tree, to
  every member registered on the key whether its subscription matches or not, while
  `tam-basic` matches at the home and notifies only the matching subscribers.
- **Subscription cost.** Siena broadcasts every subscription over its one server tree
  (Cao & Singh §II.A); Kyra moves it to the proxies of its clique whose zones it overlaps
  and broadcasts each proxy's entry over each routing tree whose zone overlaps it (§III): it
  costs more than Siena where subscriptions span many zones and less where they are narrow
  in the partition attribute (by default the schema's first, decision K-D1 in docs/kyra.md:
  the quotes' symbol, a range of 2 % of it per subscription). OctopiA broadcasts a subscription
  over the aLinks of the subscriber's cluster only (§VI), a cost independent of the
  publishers; TID sends it along the reverse path of every advertisement tree it overlaps.
  The `zipf` and `uniform` traces carry no advertisements, so each publisher gets the
  bounding box of its events as one implicit advertisement (decision O-IMPLICIT in
  docs/octopia.md): almost every subscription overlaps almost every publisher's tree, and
  TID's subscription cost and PRT size grow with the publishers, while on `octopia-stock`,
  whose advertisements cover 2 % of the symbols (OctopiA §VIII), TID is cheap. The thesis
  routes one probe and one insert per subscription (§3.3) plus the split traffic of §3.2.2;
  Tam et al. route one JOIN per index key, absorbed at the first node already in the tree
  (§3.3), or one message to the key's home (§3.2). Multicast groups send nothing per
  subscription here: the groups are pre-constructed (§II.B), read offline from the trace's
  subscriptions with their trees (decision K-D10 in docs/kyra.md), so a subscription's
  server is already a member of its groups.
- **Storage.** Siena keeps one entry per subscription at every server (its mean per node is
  the number of live subscriptions); Kyra one per proxy entry at every member of each tree
  the entry is broadcast on. The DHT-based systems store a subscription once (the thesis'
  leaf point; Tam et al.'s home) or at its subscriber plus the Scribe child records of the
  JOIN routes; OctopiA's PRTs hold it at the brokers of the subscriber's cluster; TID's hold
  one entry per overlapping advertisement tree at each broker on it.
- **Latency.** The broker systems' event paths follow minimum spanning trees of the latency
  model (decision K-D9 in docs/kyra.md) or the SCOT's links; the thesis' and Tam et al.'s
  follow Pastry routes (thesis §2.1.2), and the thesis adds a probe round before each
  delivery. OctopiA's includes its output-queue model (decision O-QUEUE in
  docs/octopia.md). IDR differs from SNR only when an output queue is overloaded (OctopiA
  §VII-B); none of these workloads overloads one, so `octopia-idr` runs the routes of
  `octopia-snr` (the overloading burst workload, `octopia-burst`, is in docs/octopia.md).
- **Load.** Tam et al.'s home-node scheme (§3.2) sends every publication on a key, and every
  notification of its subscriptions, from the key's home, and Zipf-distributed values make a
  few keys popular; OctopiA's and TID's load is over the 70 brokers of the default SCOT,
  every client attached to one of them. Where the busiest node of the thesis system sits is
  not isolated here.

Each of the five papers measures its own system, alone or beside its own baselines (Kyra
beside Siena and multicast groups, OctopiA beside TID); none runs the others' systems on its
workloads, the LBDD paper (Li Kai et al., "Load-balancing data distribution in
publish/subscribe mode", Journal of Southeast University 2014) included. The numbers here
are the simulated systems of this reference under one latency model and one message-size
model (decision D-MSG in docs/thesis.md), at small sizes, not the papers' testbeds; each
paper's own evaluation is taken up on its page.
"""


def page(rows: Sequence[Row], profiles: Sequence[str], seeds: Sequence[int], seconds: float,
         jobs: int, quick: bool, cpu_seconds: float = math.nan) -> str:  # fmt: skip
    cmd = "python -m benchmarks.bench_compare" + (" --quick" if quick else "")
    sizes = "\n".join(f"- {profile_line(p)}" for p in profiles)
    out = [
        "---",  # the site's table of contents off: the tables need the width
        "hide:",
        "  - toc",
        "---",
        "",
        "# All nine systems side by side",
        "",
        "Every simulated system of the registry (`pubsub-spec systems`), each with its default",
        "variant (the thesis with unicast delivery), on the same workloads at the same sizes,",
        "with the same measures. None of the five papers could compare against the others;",
        "this page is generated by one command, from the same code that prints its tables:",
        "",
        "```sh",
        f"{cmd} --jobs {jobs} --write docs/comparison.md",
        "```",
        "",
        "(`pubsub-spec figures --only CMP` writes the same page as `comparison.md` in its",
        "output folder: the quick plan at `--scale small`, this one at `--scale full`.)",
        "",
        f"- workloads (`conformance/generators.py`): {', '.join(f'`{w}`' for w in WORKLOADS)}",
        "  (`zipf`: the thesis' workload of §4.1.2 scaled to the profile; `uniform`: uniform",
        "  values on two schemas, 10 % of the subscriptions removed again; `octopia-stock`: the",
        "  stock quotes of OctopiA §VIII, ten attributes, with advertisements);",
        f"- sizes (the generators' profiles):\n{_indent(sizes)}",
        f"- seeds: {', '.join(map(str, seeds))} (trace index 0 of each generator); the",
        "  measures pool the seeds (sums of messages over sums of ops, percentiles over all",
        "  latencies, storage over every node of every run; busiest/mean is the mean of the",
        "  runs' ratios);",
        f"- machine: {machine_note()}; the whole run took {seconds:.0f} s of wall time",
        f"  ({_n(cpu_seconds)} s of CPU) with {jobs} worker process(es), on a machine shared",
        "  with other jobs (on an idle machine the wall time is about the CPU time over the",
        "  workers).",
        "",
        "## Measures",
        "",
        "- **msgs**: the messages sent (`Metrics.sends`: a message routed over Pastry counts",
        "  once); **hops**: the network messages they took (`Metrics.messages`, one per overlay",
        "  hop; a send to oneself takes none); **bytes**: the bytes of those hops (decision",
        "  D-MSG). Per subscription: over the subscribe ops; per publication: over the publish",
        "  ops. `other msgs/op`: messages of neither side (advertisements, removals), per op;",
        "  OctopiA's and TID's include the implicit advertisements built before the first op",
        "  (decision O-IMPLICIT in docs/octopia.md).",
        "- **latency**: delivery latency from the publication (ms), nearest-rank percentiles;",
        "  **install p50**: the median time from a subscribe to its last installation message",
        "  (0 where nothing is sent).",
        "- **storage/node**: live entries per node at the end of the run, counted from the",
        "  system's `state` observations (`reference/sim/observe.py`,",
        "  `conformance/OBSERVATIONS.md`), over every node the system has (OctopiA's and TID's",
        "  nodes are the brokers of the SCOT, whatever the number of clients).",
        "- **busiest/mean**: network messages sent by the busiest node over the mean per node.",
        "- **oracle**: every run's deliveries against the oracle; `skipped (reason)` for a",
        "  system that lacks a feature the workload needs.",
        "",
        "Which message types are charged to which side: the families' `SUBSCRIPTION` and",
        "`DISSEMINATION` sets (`conformance/protocol_rules/<family>.py`), the same",
        "classification as the conformance suite's cost envelope. The families differ on",
        "removals: Kyra's and Siena's unsubscription messages are declared on the subscription",
        "side, OctopiA's, TID's and Tam et al.'s are not (they are `other`).",
        "",
        *classification(),
        "",
        "What storage counts, per system:",
        "",
        "| system | storage entries |",
        "|---|---|",
        *(f"| {s} | {STORAGE[s]} |" for s in SYSTEMS if s in STORAGE),
        "",
        "## Results",
        "",
        *tables(rows, profiles),
        "## Reading",
        "",
        f"Read off the largest profile ({profile_line(profiles[-1])}), the lowest and the",
        "highest system per measure:",
        "",
        *findings(rows, profiles[-1]),
        "",
        "Each paper against its own baseline (a / b, same profile):",
        "",
        *pair_table(rows, profiles[-1]),
        "",
        READING,
    ]
    return "\n".join(out).rstrip() + "\n"


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the workers)."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _indent(text: str) -> str:
    """Indented as a nested list (Python-Markdown needs four spaces)."""
    return "\n".join("    " + line for line in text.splitlines())


def write_figures(out: Path, only: Sequence[str], options: FigureOptions) -> FiguresWritten:
    """The comparison's figure writer (`CROSS_FAMILY_FIGURES` in properties/contract.py):
    `comparison.md` in `out` (scale `small`: the quick plan; otherwise the default one) and a
    link to it on the index page."""
    quick = options.scale == "small"
    profiles = QUICK_PROFILES if quick else DEFAULT_PROFILES
    seeds = QUICK_SEEDS if quick else DEFAULT_SEEDS
    t0, c0 = time.perf_counter(), _cpu()
    rows = aggregate(run_all(profiles, seeds, max(1, options.jobs)))
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    out.mkdir(parents=True, exist_ok=True)
    text = page(rows, profiles, seeds, seconds, max(1, options.jobs), quick, cpu)
    (out / "comparison.md").write_text(text, encoding="utf-8")
    print(f"CMP: {len(rows)} rows, {seconds:.0f} s")
    link = "\n## All nine systems side by side\n\nOne page: [comparison.md](comparison.md).\n"
    bad = tuple(f"{r.system}/{r.workload}/{r.profile}" for r in rows if r.disagree)
    return FiguresWritten(1, link, bad)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--quick", action="store_true", help="the small profile, one seed")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default: 2, or 1 on a one-core machine)")  # fmt: skip
    p.add_argument("--write", metavar="PATH", help="also write the Markdown page to PATH")
    args = p.parse_args(argv)
    profiles = QUICK_PROFILES if args.quick else DEFAULT_PROFILES
    seeds = QUICK_SEEDS if args.quick else DEFAULT_SEEDS
    t0, c0 = time.perf_counter(), _cpu()
    runs = run_all(profiles, seeds, max(1, args.jobs))
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    rows = aggregate(runs)
    print("\n".join(tables(rows, profiles)))
    print(f"({len(runs)} runs, {seconds:.0f} s, {max(1, args.jobs)} job(s); {machine_note()})")
    if args.write:
        Path(args.write).write_text(
            page(rows, profiles, seeds, seconds, max(1, args.jobs), args.quick, cpu),
            encoding="utf-8",
        )
        print(f"wrote {args.write}")
    return 1 if any(r.disagree for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
