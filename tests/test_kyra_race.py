"""Subscription propagation racing publications (K-D12), clustered server placement (K-D15),
and the TLA+ model's layout pinned to the reference's partitions (spec/kyra/)."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

from pubsub_spec.properties.kyra.mutants import EarlyInstallKyra
from pubsub_spec.properties.kyra.race import check_race, race_trace
from pubsub_spec.reference.common.model import Attribute, Schema
from pubsub_spec.reference.kyra.base import ClusteredLatency
from pubsub_spec.reference.kyra.config import KyraCodec, KyraConfig
from pubsub_spec.reference.kyra.info import INFOS
from pubsub_spec.reference.kyra.system import KyraSystem, build_layout
from pubsub_spec.reference.sim.latency import LatencyModel
from pubsub_spec.reference.sim.run import run_and_compare, run_trace
from pubsub_spec.reference.sim.system import SystemInfo
from pubsub_spec.reference.thesis.workload import thesis_trace

SPEC = Path(__file__).resolve().parent.parent / "spec" / "kyra"


@pytest.mark.parametrize("info", INFOS, ids=[i.name for i in INFOS])
def test_race_every_event_reaches_the_subscription_just_installed(info: SystemInfo) -> None:
    cmp = check_race(info.variants[0].make)
    assert cmp.agree and cmp.expected >= 20, cmp.summary()


def test_early_install_mutant_misses() -> None:
    """The TLA+ mutant MCKyraRouting_EarlyInstall on the reference: events overtake entries."""
    cmp = check_race(EarlyInstallKyra)
    assert cmp.missed and not cmp.duplicate and not cmp.spurious, cmp.summary()


def test_race_trace_is_deterministic() -> None:
    assert race_trace(3) == race_trace(3) and race_trace(3) != race_trace(4)


def _mean_latency(lat: LatencyModel, names: list[str]) -> float:
    return statistics.fmean(lat.one_way(a, b) for a in names for b in names if a < b)


def test_clustered_placement_is_deterministic_and_tighter() -> None:
    names = [f"n{i}" for i in range(60)]
    a, b = ClusteredLatency(1, 180.0, 4, 0.05), ClusteredLatency(1, 180.0, 4, 0.05)
    u = LatencyModel(1, 180.0)
    for n in names:
        a.place(n)
        b.place(n)
        u.place(n)
    assert [a.one_way("n0", n) for n in names] == [b.one_way("n0", n) for n in names]
    # 4 clusters: about a quarter of the pairs are intra-cluster, well under 30 ms one-way
    pairs = [(x, y) for x in names for y in names if x < y]
    near = sum(1 for p in pairs if a.one_way(*p) < 30.0)
    assert near >= len(pairs) // 5
    assert sum(1 for p in pairs if u.one_way(*p) < 30.0) < near / 3
    assert _mean_latency(a, names) < _mean_latency(u, names)


@pytest.mark.parametrize("info", INFOS, ids=[i.name for i in INFOS])
def test_clustered_placement_agrees_with_oracle(info: SystemInfo) -> None:
    trace = thesis_trace(40, 2, 40, 5).with_section(info.name, KyraConfig(placement_clusters=3))
    result, cmp = run_and_compare(trace, info.variants[0].make)
    assert cmp.agree and cmp.expected > 0, cmp.summary()
    again = run_trace(trace, info.variants[0].make)
    assert again.event_log_hash == result.event_log_hash


def test_clustered_placement_changes_the_cliques() -> None:
    base = thesis_trace(60, 1, 1, 2)
    uniform = KyraSystem(base).cliques
    clustered = KyraSystem(base.with_section("kyra", KyraConfig(placement_clusters=3))).cliques
    assert uniform != clustered

    def diameter(k: KyraSystem) -> float:
        return statistics.fmean(
            max((k.distance(a, b) for a in c for b in c if a < b), default=0.0) for c in k.cliques
        )

    # the same size limit, but the cliques are found inside the clusters: tighter
    assert diameter(KyraSystem(base.with_section("kyra", KyraConfig(placement_clusters=3)))) < (
        0.75 * diameter(KyraSystem(base))
    )


def test_codec_placement_fields() -> None:
    codec = KyraCodec("kyra")
    cfg = codec.parse({"placement_clusters": 8, "placement_spread": 0.1}, "line 1", [])
    assert cfg == KyraConfig(placement_clusters=8, placement_spread=0.1)
    assert codec.to_json(cfg) == {"placement_clusters": 8, "placement_spread": 0.1}
    for bad in ({"placement_clusters": -1}, {"placement_clusters": 1.5}):
        with pytest.raises(ValueError):
            codec.parse(bad, "line 1", [])


def _tla_sets(name: str) -> list[set[int]]:
    text = (SPEC / "MCKyraRouting.tla").read_text()
    m = re.search(rf"^{name} == <<(.*?)>>\s*$", text, re.M | re.S)
    assert m, name
    return [{int(x) for x in re.findall(r"\d+", g)} for g in re.findall(r"\{([^}]*)\}", m[1])]


def test_tla_model_layout_is_the_references() -> None:
    """The TLA+ model's zones, tree zones and tree members are what build_layout computes for
    its cliques ({1, 2}, {3, 4, 5}) over the keys 0..5 with T = 2 (K-D1..3)."""
    schema = Schema("k", (Attribute("key", "int", 0, 5),))
    cliques = [("s1", "s2"), ("s3", "s4", "s5")]
    lay = build_layout(
        schema, cliques, 2, schema.attributes, lambda a, b: abs(int(a[1]) - int(b[1]))
    )

    def keys(z: object) -> set[int]:
        return {k for k in range(6) if z.contains((k,))}  # type: ignore[attr-defined]

    assert _tla_sets("MCZone") == [keys(lay.zones[f"s{i}"]) for i in range(1, 6)]
    assert _tla_sets("MCY") == [keys(y) for y in lay.tree_zones]
    adj = _tla_sets("MCAdj")  # tree 1's five neighbour sets, then tree 2's
    for t, tree in enumerate(lay.trees):
        members = {i for i in range(1, 6) if adj[5 * t + i - 1]}
        assert members == {int(s[1]) for s in tree.members}
