"""The experiments behind docs/thesis.md, "Chapter 4 figures": why four results of thesis
Chapter 4 are not reproduced as stated (multicast saving, cut-off effect, hot-spot
concentration, latency level). Each experiment varies one thing on the thesis workload
(Tables 4.1–4.3) and prints what it changes.

Run: python -m benchmarks.bench_thesis_gaps [--nodes 1000] [--events 500]
         [--only multicast,cutoff,hotspot,latency,skew,probelevel,growth,firststage,seeds,
                 growthseeds]

`growth` (Fig. 4.9 with PNS) runs the preset at 1000 and 5000 nodes whatever --nodes says;
`growthseeds` does so without PNS on seeds 1-5 (rows T23-T25 of pubsub_spec/claims.py).
`firststage` bounds what multicast of the first stage can do for the busiest node (row T17);
`seeds` judges the claims rows of Figs. 4.2 and 4.4-4.7 on seeds 1-10 (--nseeds, --rows);
`placements` runs row T13's cause on seeded placements 1-10 (--nseeds; D-SEEDS in docs/thesis.md).

`--record` writes what each experiment measured into pubsub_spec/claims_experiments.json (one
entry per experiment, keyed by the command that reruns it alone, with its sizes, seed and
values): the claims table (pubsub_spec/claims.py) reads its experiments' numbers from there, so
they cannot drift from the runs (tests/test_claims_tables.py reruns the cheapest one).

`probelevel` (G4, cause b) swaps RndLeafProbe's first level, an experiment switch of this
benchmark only (`ProbeLevel`; the reference keeps D-PARAM's uniform [0, 10]). `skew` (G3) and
`probelevel` run on the fast engine (reference/thesis/substrate_fast.py, the reference's run
bit for bit), the others on the reference and its instrumented subclasses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pubsub_spec.reference.common.model import qualified
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.thesis.config import (
    ThesisConfig,
    default_cutoff,
    thesis_preset,
    with_config,
)
from pubsub_spec.reference.thesis.figures import PROBE_TYPES, PUBLISH_TYPES
from pubsub_spec.reference.thesis.messages import Message, ProbePub, ProbeSub
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.substrate import ReferenceSubstrate
from pubsub_spec.reference.thesis.substrate_fast import FastTwoDTreeSystem
from pubsub_spec.reference.thesis.system import Peer, TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import StoredPoint
from pubsub_spec.reference.thesis.workload import THESIS_PROFILES, thesis_trace

# Relative delay penalty of Pastry routes with proximity neighbour selection (§2.1.2): a route's
# latency over the direct one-way latency, about 1.3–1.5 (Castro et al., "Proximity neighbor
# selection in tree-based structured peer-to-peer overlays", 2003).
PNS_RDP = 1.4

# the record the claims table reads (package data of pubsub_spec, beside pubsub_spec/claims.py)
RECORD = Path(__file__).resolve().parents[1] / "pubsub_spec" / "claims_experiments.json"
PROG = "python -m benchmarks.bench_thesis_gaps"
DEFAULT_ROWS = "T6,T10,T12,T13,T15,T16,T18,T20"


class _ProximityAccount(ReferenceSubstrate):
    def account(self, path: Sequence[int], msg: Message) -> float:
        total = super().account(path, msg)
        if len(path) <= 2:
            return total
        s = self.system
        a, b = s.peers[path[0]].name, s.peers[path[-1]].name
        return min(total, PNS_RDP * s.latency.one_way(a, b))


class ProximityRoutes(TwoDTreeSystem):
    """The reference with a stand-in for proximity neighbour selection: a multi-hop route
    takes PNS_RDP x the direct latency of its ends instead of the sum of random-peer hops.
    Messages, hops and bytes are counted exactly as in the reference."""

    substrate_class = _ProximityAccount


class _HopAccount(ReferenceSubstrate):
    hop_ms = 0.0
    hop_count = 0

    def account(self, path: Sequence[int], msg: Message) -> float:
        total = super().account(path, msg)
        if len(path) > 2:
            self.hop_ms += total
            self.hop_count += len(path) - 1
        return total


class HopMeter(TwoDTreeSystem):
    """The reference, unchanged, that also sums the one-way latency and count of every hop of
    every multi-hop send (to compare per-hop latency with and without PNS)."""

    substrate_class = _HopAccount


class ProbeMeter(TwoDTreeSystem):
    """The reference, unchanged, that also counts the region probes each tree node receives
    (Program 3.3), by the peer that hosts it: which tree nodes make the busiest peers busy."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.node_probes: Counter[tuple[str, str, str]] = Counter()  # (peer, qattr, bits)

    def _on_probe_pub(self, peer: Peer, msg: ProbePub) -> None:
        self.node_probes[(peer.name, msg.qattr, msg.target)] += 1
        super()._on_probe_pub(peer, msg)


class ProbeLevel(FastTwoDTreeSystem):
    """G4, cause (b): RndLeafProbe (thesis §3.3, Program 3.2 line 12) with its first level
    drawn otherwise, every other rule the reference's. `mode`:
    - "uniform-10": D-PARAM's uniform [0, 10], as the reference (a control: the same runs);
    - "within-depth": uniform in [0, d], d the depth of the leaf that holds the point now (an
      oracle view of the tree no peer has; it can undershoot, never overshoot);
    - "leaf": d itself, the leaf's level (never a jump-back, never a walk down).
    An overshoot shows as a ProbeSub jump-back (Program 3.2, lines 65-68), counted here."""

    mode = "uniform-10"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.first_probes = 0  # one per point stored or removed
        self.sub_jump_backs = 0  # of ProbeSub only (the reference counts region probes' too)

    def _leaf_depth(self, qattr: str, path: str) -> int:
        for level in range(len(path) + 1):
            bits = path[:level]
            node = self._node(self._home(self._key(qattr, bits)), qattr, bits)
            if node is None or node.is_leaf:
                return level
        return len(path)

    def _probe_for(self, peer: Peer, point: StoredPoint, remove: bool) -> None:
        if self.mode == "uniform-10":
            super()._probe_for(peer, point, remove)
        else:
            q = qualified(point.sub.schema, point.base)
            depth = self._leaf_depth(q, point.path)
            level = depth if self.mode == "leaf" else self.rng.randint(0, depth)
            target = point.path[:level]
            self.send_key(peer, self._key(q, target), ProbeSub(point, target, remove))
        self.first_probes += 1

    def _on_probe_sub(self, peer: Peer, msg: ProbeSub) -> None:
        q = qualified(msg.point.sub.schema, msg.point.base)
        if not msg.found and self._node(peer, q, msg.target) is None:
            self.sub_jump_backs += 1
        super()._on_probe_sub(peer, msg)


def _probe_level_row(trace: Trace, config: ThesisConfig, mode: str) -> dict[str, float]:
    cls = type(f"ProbeLevel_{mode}", (ProbeLevel,), {"mode": mode})
    r = run_trace(with_config(trace, config), check=False, system_class=cls)
    system = r.system
    assert isinstance(system, ProbeLevel)
    m = system.metrics
    subs = max(1, len(system.subs))
    lat = sorted(m.install_latency_ms)
    return {
        "install_ms": statistics.fmean(lat) if lat else 0.0,
        "install_p90_ms": lat[int(0.9 * (len(lat) - 1))] if lat else 0.0,
        "install_le_600": sum(1 for x in lat if x <= 600) / max(1, len(lat)),  # Fig. 4.1
        "install_le_1000": sum(1 for x in lat if x <= 1000) / max(1, len(lat)),
        "probe_sub_per_sub": m.sends["ProbeSub"] / subs,
        "first_probes_per_sub": system.first_probes / subs,
        "jump_backs_per_sub": system.sub_jump_backs / subs,
        "max_depth": float(m.max_depth),
    }


def hotspot(
    trace: Trace, config: ThesisConfig, top: int = 3, values: dict[str, float] | None = None
) -> list[str]:
    """G3: the busiest peers by probe bytes, the tree nodes they host that receive the most
    probes, and the probes received per event by tree depth (and, into `values`, the mean and
    the busiest peer's probe bytes per event)."""
    r = run_trace(with_config(trace, config), check=False, system_class=ProbeMeter)
    system = r.system
    assert isinstance(system, ProbeMeter)
    peers = [p.name for p in system.peers.values()]
    events = max(1, len(system.event_seq))
    probe = dict(zip(peers, per_node(system.metrics, peers, PROBE_TYPES, events), strict=True))
    mean = statistics.fmean(probe.values())
    by_depth: Counter[int] = Counter()
    for (_, _, bits), n in system.node_probes.items():
        by_depth[len(bits)] += n
    total = sum(by_depth.values())
    deep = sum(n for d, n in by_depth.items() if d >= 10)
    if values is not None:
        values.update(probe_mean=mean, probe_max_over_mean=max(probe.values()) / mean)
    lines = [
        f"probes received per event {total / events:.1f}, at depth >= 10: {deep / total:.0%};"
        f" probe bytes max/mean {max(probe.values()) / mean:.1f}"
    ]
    for name in sorted(probe, key=lambda p: (-probe[p], p))[:top]:
        mine = sorted(
            ((n, q, bits) for (p, q, bits), n in system.node_probes.items() if p == name),
            key=lambda t: (-t[0], t[1], t[2]),
        )[:2]
        nodes = ", ".join(f"{q.split('/')[-1]} '{bits}' ({n / events:.2f} probes/event)"
                          for n, q, bits in mine)  # fmt: skip
        lines.append(f"  {name}: {probe[name] / mean:.1f}x mean; hosts {nodes}")
    return lines


def per_node(
    result_metrics: object, peers: Sequence[str], kinds: Sequence[str], per: int
) -> list[float]:
    pb: Counter[tuple[str, str]] = result_metrics.peer_bytes  # type: ignore[attr-defined]
    return [sum(pb[(p, k)] for k in kinds) / per for p in peers]


def _run(
    trace: Trace, config: ThesisConfig, cls: type[TwoDTreeSystem] = TwoDTreeSystem
) -> dict[str, float]:
    r = run_trace(with_config(trace, config), check=False, system_class=cls)
    m = r.system.metrics
    peers = [p.name for p in r.system.peers.values()]
    events = len(r.system.event_seq)
    probe = per_node(m, peers, PROBE_TYPES, events)
    pub = per_node(m, peers, PUBLISH_TYPES, events)
    return {
        "probe_mean": statistics.fmean(probe),
        "probe_max": max(probe),
        "pub_mean": statistics.fmean(pub),
        "pub_max_over_mean": max(pub) / statistics.fmean(pub),
        # Fig. 4.4's shares: nodes within 1.2x the mean (1.6k of 1.32k), above 4.5x (6k)
        "pub_le_1.2x": sum(1 for x in pub if x <= 1.21 * statistics.fmean(pub)) / len(pub),
        "pub_over_4.5x": sum(1 for x in pub if x > 6000 / 1320 * statistics.fmean(pub)) / len(pub),
        "probe_max_over_mean": max(probe) / statistics.fmean(probe),
        "pp_share": m.bytes["ProbePub"]
        / max(1, m.bytes["ProbePub"] + m.bytes["ProbePubMulticast"]),
        "jump_backs_per_event": m.jump_backs / max(1, events),
        "delivery_ms": statistics.fmean(m.delivery_latency_ms) if m.delivery_latency_ms else 0.0,
        "delivery_max_ms": max(m.delivery_latency_ms, default=0.0),
        # Fig. 4.3's shares: deliveries within 400 ms and 1 s
        "delivery_le_400": sum(1 for x in m.delivery_latency_ms if x <= 400)
        / max(1, len(m.delivery_latency_ms)),
        "delivery_le_1000": sum(1 for x in m.delivery_latency_ms if x <= 1000)
        / max(1, len(m.delivery_latency_ms)),
        "install_ms": statistics.fmean(m.install_latency_ms) if m.install_latency_ms else 0.0,
        "probe_sub_routes_per_sub": m.sends["ProbeSub"] / max(1, len(r.system.subs)),
        "pastry_hops_per_route": m.hops_per_send("ProbeSub"),
        "ms_per_hop": (
            r.system.net.hop_ms / max(1, r.system.net.hop_count)
            if isinstance(r.system.net, _HopAccount)
            else 0.0
        ),
    }


def _growth(x: float, base: float) -> str:
    return f"{100 * (x / base - 1):+.0f} %" if base else "n/a"


def command(argv: Sequence[str], exp: str) -> str:
    """The command that reruns experiment `exp` alone with the options of `argv` (in their
    order; --record dropped, --only narrowed to `exp`, --rows and --nseeds kept only where
    they matter): the key of its entry in the record."""
    parts, toks = [PROG], list(argv)
    while toks:
        name, eq, val = toks.pop(0).partition("=")
        if name == "--record":  # its path, if given, is not part of the command
            if not eq and toks and not toks[0].startswith("--"):
                toks.pop(0)
            continue
        if not eq:
            val = toks.pop(0) if toks else ""
        if name == "--only":
            val = exp
        elif (name == "--rows" and exp != "seeds") or (
            name == "--nseeds" and exp not in ("seeds", "placements")
        ):
            continue
        parts += [name, val]
    if "--only" not in parts:
        parts += ["--only", exp]
    return " ".join(parts)


def write_record(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    """Merge `entries` (command -> entry) into the record at `path`, sorted, one value a line."""
    old = json.loads(path.read_text()) if path.exists() else {}
    old.update(entries)
    path.write_text(json.dumps(dict(sorted(old.items())), indent=1, sort_keys=True) + "\n")


def _unwritable(path: Path) -> str | None:
    """Why the record at `path` cannot be merged into (None if it can): an unreadable or
    damaged record, or a folder that cannot be written."""
    try:
        if path.exists():
            json.loads(path.read_text())
            with path.open("a"):
                pass
        elif not os.access(path.parent if str(path.parent) else Path("."), os.W_OK):
            return f"cannot write in {path.parent}"
    except (OSError, ValueError) as e:
        return str(e)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--subs-per-node", type=float, default=5)
    p.add_argument("--events", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    # D-SEEDS (docs/thesis.md): how many seeds `seeds` runs and how many seeded placements
    # `placements` runs; --rows: the claims rows `seeds` judges
    p.add_argument("--nseeds", type=int, default=10)
    p.add_argument("--rows", default=DEFAULT_ROWS)
    p.add_argument(
        "--only",
        default="multicast,cutoff,hotspot,latency,skew,probelevel,growth,firststage,seeds,"
        "growthseeds",
    )
    p.add_argument(
        "--record",
        nargs="?",
        const=str(RECORD),
        default=None,
        help="merge each experiment's values into this JSON record (default: "
        "pubsub_spec/claims_experiments.json, which pubsub_spec/claims.py reads)",
    )
    argv = list(sys.argv[1:] if argv is None else argv)
    a = p.parse_args(argv)
    if a.record and (problem := _unwritable(Path(a.record))):
        print(f"bench_thesis_gaps: --record {a.record}: {problem}", file=sys.stderr)
        return 2  # said before the experiments run, not after them
    # what each experiment measured: experiment -> value name -> value (written by --record)
    rec: dict[str, dict[str, float]] = {}
    trace = thesis_trace(a.nodes, a.subs_per_node, a.events, a.seed)
    preset = thesis_preset(trace.schemas)
    only = a.only.split(",")
    print(f"thesis workload {a.nodes} x {a.subs_per_node} x {a.events}, seed {a.seed}")
    start = time.monotonic()
    if "multicast" in only or "cutoff" in only:
        print("\nprobe routing x cut-off c (fraction of domain width): probe bytes/node/event")
        print(
            f"{'c':>6} {'probe':>10} {'mean':>8} {'max':>8} {'max/mean':>9} {'ProbePub share':>15}"
            f" {'jump-backs/ev':>14} {'pub max/mean':>13}"
        )
        for frac in (None, 0.05, 0.1, 0.2, 0.3, 0.5):
            for probe in ("unicast", "multicast"):
                cut = default_cutoff(trace.schemas, frac) if frac else ()
                r = _run(trace, replace(preset, probe=probe, cutoff=cut))
                for exp in ("multicast", "cutoff"):
                    if exp in only:
                        for k in ("probe_mean", "probe_max", "probe_max_over_mean", "pp_share",
                                  "jump_backs_per_event", "pub_max_over_mean"):  # fmt: skip
                            rec.setdefault(exp, {})[f"c={frac or 'off'} {probe} {k}"] = r[k]
                print(
                    f"{frac or 'off':>6} {probe:>10} {r['probe_mean']:8.1f} {r['probe_max']:8.0f}"
                    f" {r['probe_max_over_mean']:9.1f} {r['pp_share']:15.2f}"
                    f" {r['jump_backs_per_event']:14.1f} {r['pub_max_over_mean']:13.1f}",
                    flush=True,
                )
    if "hotspot" in only:
        print("\nhot spots (unicast probes): the busiest peers and the tree nodes they host")
        for frac in (None, 0.1):
            cut = default_cutoff(trace.schemas, frac) if frac else ()
            print(f"c = {frac or 'off'}:")
            spots: dict[str, float] = {}
            for line in hotspot(trace, replace(preset, probe="unicast", cutoff=cut), values=spots):
                print(f"  {line}", flush=True)
            for k, v in spots.items():
                rec.setdefault("hotspot", {})[f"c={frac or 'off'} {k}"] = v
    if "latency" in only:
        print("\nlatency model: mean delivery / installation latency (ms)")
        pns = replace(preset, proximity_routing=True)
        for label, config, cls in (
            ("D-NET random-peer hops", preset, HopMeter),
            ("PNS stand-in", preset, ProximityRoutes),
            # real Pastry PNS (reference/overlay/pastry.py, D-DHT): PNS(16) and perfect PNS
            ("PNS, 16 candidates", pns, HopMeter),
            ("PNS, all candidates", replace(pns, proximity_candidates=0), HopMeter),
        ):
            r = _run(trace, config, cls)
            for k in ("delivery_ms", "delivery_le_400", "delivery_le_1000", "install_ms",
                      "pastry_hops_per_route"):  # fmt: skip
                rec.setdefault("latency", {})[f"{label} {k}"] = r[k]
            per_hop = f"  ms/hop {r['ms_per_hop']:.1f}" if r["ms_per_hop"] else ""
            print(
                f"{label:<24} delivery {r['delivery_ms']:6.0f}"
                f" (<=400ms {r['delivery_le_400']:.0%}, <=1s {r['delivery_le_1000']:.0%})"
                f"  install {r['install_ms']:6.0f}"
                f"  ProbeSub routes/sub {r['probe_sub_routes_per_sub']:.2f}"
                f"  hops/route {r['pastry_hops_per_route']:.2f}{per_hop}",
                flush=True,
            )
    if "skew" in only:
        print("\nZipf ranks on the lowest sub-ranges (Table 4.3 as read) or on a seeded")
        print("permutation of them (the same skew, spread over the domain): bytes/node/event")
        print(f"{'ranks':>10} {'c':>5} {'probe mean':>11} {'probe max/mean':>15}", end="")
        print(f" {'pub max/mean':>13} {'pub <=1.2x mean':>16} {'pub >4.5x mean':>15}")
        for order in (None, 1, 2, 3, 4, 5):
            profiles = {k: replace(v, rank_order=order) for k, v in THESIS_PROFILES.items()}
            ranked = thesis_trace(a.nodes, a.subs_per_node, a.events, a.seed, profiles=profiles)
            for frac in (None, 0.1):
                cut = default_cutoff(trace.schemas, frac) if frac else ()
                r = _run(ranked, replace(preset, cutoff=cut), FastTwoDTreeSystem)
                label = "lowest" if order is None else f"shuffled {order}"
                for k in ("probe_mean", "probe_max_over_mean", "pub_max_over_mean", "pub_le_1.2x",
                          "pub_over_4.5x"):  # fmt: skip
                    rec.setdefault("skew", {})[f"{label} c={frac or 'off'} {k}"] = r[k]
                print(
                    f"{label:>10} {frac or 'off':>5} {r['probe_mean']:11.1f}"
                    f" {r['probe_max_over_mean']:15.1f} {r['pub_max_over_mean']:13.1f}"
                    f" {r['pub_le_1.2x']:16.0%} {r['pub_over_4.5x']:15.1%}",
                    flush=True,
                )
    if "probelevel" in only:
        print("\nRndLeafProbe's first level (G4, cause b): installation latency and sends")
        print(f"{'cut-off':>8} {'PNS':>4} {'first level':>13} {'install ms':>11} {'p90':>6}"
              f" {'ProbeSub/sub':>13} {'points/sub':>11} {'jump-backs/sub':>15}"
              f" {'<=600ms':>8} {'<=1s':>6}")  # fmt: skip
        for with_cut in (True, False):
            for with_pns in (False, True):
                setting = replace(preset, proximity_routing=with_pns)
                if not with_cut:
                    setting = replace(setting, cutoff=())
                for mode in ("uniform-10", "within-depth", "leaf"):
                    r = _probe_level_row(trace, setting, mode)
                    where = f"c={'0.1' if with_cut else 'off'} pns={'on' if with_pns else 'off'}"
                    for k, v in r.items():
                        rec.setdefault("probelevel", {})[f"{where} {mode} {k}"] = v
                    print(
                        f"{'c=0.1' if with_cut else 'off':>8} {'on' if with_pns else 'off':>4}"
                        f" {mode:>13}"
                        f" {r['install_ms']:11.0f} {r['install_p90_ms']:6.0f}"
                        f" {r['probe_sub_per_sub']:13.2f} {r['first_probes_per_sub']:11.2f}"
                        f" {r['jump_backs_per_sub']:15.2f} {r['install_le_600']:8.0%}"
                        f" {r['install_le_1000']:6.0%}",
                        flush=True,
                    )
    if "growth" in only:
        print("\nmean delivery latency against network size (Fig. 4.9), the preset, with PNS(16)")
        base: dict[bool, float] = {}
        for n in (1000, 5000):
            sized = thesis_trace(n, a.subs_per_node, a.events, a.seed)
            for with_pns in (False, True):
                setting = replace(thesis_preset(sized.schemas), proximity_routing=with_pns)
                r = _run(sized, setting, FastTwoDTreeSystem)
                base.setdefault(with_pns, r["delivery_ms"])
                on = "on" if with_pns else "off"
                for k in ("delivery_ms", "delivery_max_ms"):
                    rec.setdefault("growth", {})[f"{n} pns={on} {k}"] = r[k]
                print(
                    f"{n:>5} nodes  PNS {'on ' if with_pns else 'off'}  delivery"
                    f" {r['delivery_ms']:6.0f} ms ({_growth(r['delivery_ms'], base[with_pns])}"
                    f" from 1000)  max {r['delivery_max_ms']:6.0f} ms",
                    flush=True,
                )
    if "firststage" in only:
        # G1's bound on the busiest node (Fig. 4.6): multicast carries only the publisher's
        # first stage (thesis §3.4.2; §4.2.1 item 6). Counting the multicast run's first stage
        # (ProbePubMulticast) as free is the most any first-stage multicast can save, node by
        # node.
        print("\nbusiest node's probe bytes/event: unicast, multicast, multicast with a free first")
        print("stage (ProbePub only), each over unicast's busiest")
        runs: dict[str, list[float]] = {}
        probes: tuple[Literal["unicast"], Literal["multicast"]] = ("unicast", "multicast")
        for probe in probes:
            run = run_trace(with_config(trace, replace(preset, probe=probe)), check=False,
                            system_class=FastTwoDTreeSystem)  # fmt: skip
            peers = [p.name for p in run.system.peers.values()]
            ev = len(run.system.event_seq)
            runs[probe] = per_node(run.system.metrics, peers, PROBE_TYPES, ev)
            if probe == "multicast":
                runs["free first stage"] = per_node(run.system.metrics, peers, ("ProbePub",), ev)
        top = max(runs["unicast"])
        for name, vals in runs.items():
            rec.setdefault("firststage", {}).update(
                {f"{name} max": max(vals), f"{name} over unicast max": max(vals) / top}
            )
            print(f"{name:>17} max {max(vals):8.0f}  over unicast's max {max(vals) / top:5.2f}")
    if "seeds" in only:
        # one seed's value is one draw: the open rows of Figs. 4.2 and 4.4-4.7 (the claims
        # table, pubsub_spec/claims.py) judged on each of 10 seeds at --nodes x 5 x --events
        from pubsub_spec.claims import THESIS_CLAIMS, TOLERANCES
        from pubsub_spec.reference.thesis.figures import Scale, build_figures
        from pubsub_spec.reference.thesis.substrate_fast import FastStreamingSystem

        rows = a.rows.split(",")
        specs = [c for c in THESIS_CLAIMS if c.id in rows]
        figures = tuple(dict.fromkeys(c.figure for c in specs))
        seeds = range(1, a.nseeds + 1)
        print(f"\nthe open rows over seeds {seeds.start}-{seeds.stop - 1}: ours per seed, median,")
        print("seeds inside the tolerance")
        got: dict[str, list[float]] = {c.id: [] for c in specs}
        for seed in seeds:
            scale = Scale("seeds", a.nodes, a.subs_per_node, a.events, (), 0, seed)
            figs, _ = build_figures(scale, figures, check=False,
                                    system_class=FastStreamingSystem)  # fmt: skip
            by_id = {f.id: f for f in figs}
            for c in specs:
                got[c.id].append(c.ours(by_id))
        for c in specs:
            vals = got[c.id]
            tol = TOLERANCES[c.tolerance]
            inside = sum(1 for v in vals if tol.holds(v, c.paper, c.paper_hi))
            rec.setdefault("seeds", {}).update({
                f"{c.id} median": statistics.median(vals), f"{c.id} min": min(vals),
                f"{c.id} max": max(vals), f"{c.id} inside": inside, f"{c.id} n": len(vals),
            })  # fmt: skip
            print(
                f"{c.id:>4} paper {c.fmt.format(c.paper):>8}  median"
                f" {c.fmt.format(statistics.median(vals)):>8}  range"
                f" {c.fmt.format(min(vals))}-{c.fmt.format(max(vals))}"
                f"  inside {inside}/{len(vals)}  (median {statistics.median(vals):.4f})",
                flush=True,
            )
    if "placements" in only:
        # D-SEEDS for row T13's cause (G3): the busiest node's publication bytes over the mean
        # with the popular Zipf sub-ranges on seeded permutations 1..--nseeds, the preset (the
        # run of Fig. 4.4)
        from pubsub_spec.claims import THESIS_CLAIMS, TOLERANCES

        t13 = next(c for c in THESIS_CLAIMS if c.id == "T13")
        pvals: list[float] = []
        for order in range(1, a.nseeds + 1):
            profiles = {k: replace(v, rank_order=order) for k, v in THESIS_PROFILES.items()}
            ranked = thesis_trace(a.nodes, a.subs_per_node, a.events, a.seed, profiles=profiles)
            r = _run(ranked, preset, FastTwoDTreeSystem)
            pvals.append(r["pub_max_over_mean"])
            print(f"placement {order:>3}: pub max/mean {pvals[-1]:6.2f}", flush=True)
        tol = TOLERANCES[t13.tolerance]
        inside = sum(1 for v in pvals if tol.holds(v, t13.paper, t13.paper_hi))
        rec["placements"] = {
            "T13 median": statistics.median(pvals), "T13 min": min(pvals),
            "T13 max": max(pvals), "T13 inside": inside, "T13 n": len(pvals),
        }  # fmt: skip
        print(
            f"T13 paper {t13.paper:.2f}x  median {statistics.median(pvals):.2f}x  range"
            f" {min(pvals):.2f}-{max(pvals):.2f}x  inside {inside}/{len(pvals)}",
            flush=True,
        )
    if "growthseeds" in only:
        # Fig. 4.9's growth (row T23) and lowest maximum (T24), Fig. 4.10's mean (T25), on
        # seeds 1-5, the preset
        print("\nmean delivery latency 1000 -> 5000 nodes (Fig. 4.9), the preset, seeds 1-5")
        for seed in range(1, 6):
            at: dict[int, dict[str, float]] = {}
            for n in (1000, 5000):
                sized = thesis_trace(n, a.subs_per_node, a.events, seed)
                at[n] = _run(sized, thesis_preset(sized.schemas), FastTwoDTreeSystem)
                for k in ("delivery_ms", "delivery_max_ms", "pub_mean"):
                    rec.setdefault("growthseeds", {})[f"seed {seed} {n} {k}"] = at[n][k]
            print(
                f"seed {seed}: {at[1000]['delivery_ms']:5.0f} -> {at[5000]['delivery_ms']:5.0f} ms"
                f" ({_growth(at[5000]['delivery_ms'], at[1000]['delivery_ms'])}); maximum"
                f" {at[1000]['delivery_max_ms']:5.0f} / {at[5000]['delivery_max_ms']:5.0f} ms;"
                f" bytes/node/event {at[1000]['pub_mean']:5.0f} -> {at[5000]['pub_mean']:5.0f}"
                f" ({_growth(at[5000]['pub_mean'], at[1000]['pub_mean'])})",
                flush=True,
            )
    print(f"\ntime {time.monotonic() - start:.0f} s")
    if a.record:
        sizes = {"nodes": a.nodes, "subs_per_node": a.subs_per_node, "events": a.events,
                 "seed": a.seed}  # fmt: skip
        entries = {command(argv, exp): {**sizes, "experiment": exp, "values": vals}
                   for exp, vals in rec.items()}  # fmt: skip
        write_record(Path(a.record), entries)
        print(f"recorded {', '.join(rec)} in {a.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
