"""Tests that kill mutants of reference/lbdd/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

import dataclasses
import functools
import random

import pytest

from pubsub_spec.reference.lbdd import figures
from pubsub_spec.reference.lbdd.algorithms import (
    Churn,
    bucket_construction,
    heartbeat_views,
    path_update_as_printed,
    tree_depth,
)
from pubsub_spec.reference.lbdd.figures import (
    PAYLOAD,
    SIM_PAYLOAD,
    SIM_SIZES,
    SLICE,
    TESTBED,
    LbddFigure,
    _tree,
    build_lbdd_figures,
    figure_1,
    figure_4,
    figures_2_3,
    table_1,
)

SOURCE = "10.0.0.1"
NODES = [f"10.0.2.{i}" for i in range(1, 41)]
FAIL_AT = {n: 5.0 + 0.37 * i for i, n in enumerate(NODES[:20])}
JOIN_AT = {n: 2.0 + 0.11 * i for i, n in enumerate(NODES[20:30])}


# -- D-L7: heartbeat failure detection and join broadcasts (docs/lbdd.md; LBDD §2.1, §3.4) -----


def test_heartbeat_defaults_and_detection_window_over_many_failures() -> None:
    """D-L7 (docs/lbdd.md): heartbeats every `period`, each arriving after a delay in
    [0, max_delay]; a peer is dropped `timeout` after its last heartbeat arrived, hence "a
    failure is detected between timeout - period and timeout + max_delay after it happened";
    a join broadcast reaches each node after a delay in [0, max_delay]. The defaults are those
    the D-L7 test of tests/test_lbdd_views.py reads the window with (period 1 s, timeout 3 s,
    max_delay 0.5 s: `5.0 + 3.0 - 1.0 < t <= 5.0 + 3.0 + 0.5`). Twenty failures seen by 39
    observers each (780 detections) leave no room for a larger timeout or a delay outside
    [0, max_delay]."""
    assert (Churn().period, Churn().timeout, Churn().max_delay) == (1.0, 3.0, 0.5)
    churn = Churn(fail_at=FAIL_AT, join_at=JOIN_AT)
    hb = heartbeat_views(SOURCE, NODES, churn, random.Random(3))
    lags = [t - FAIL_AT[p] for (_, p), t in hb.detected.items()]
    assert len(lags) == 20 * 40  # every other node of the 41 observes each failure
    assert all(3.0 - 1.0 < lag <= 3.0 + 0.5 for lag in lags)
    learned = [t - JOIN_AT[p] for (_, p), t in hb.learned.items()]
    assert len(learned) == 10 * 40
    assert all(0.0 <= d <= 0.5 for d in learned)


def test_without_churn_views_agree_from_the_start() -> None:
    """D-L7 / V5 (docs/lbdd.md): `settled_after()` is the time from which every live node's
    view is exactly the live set. Without failures or joins every node starts knowing every
    other, so views agree from time 0, the start of the run (not before it)."""
    hb = heartbeat_views(SOURCE, NODES[:5], Churn(), random.Random(1))
    assert hb.settled_after() == 0.0
    alive = hb.alive(0.0)
    assert all(v | {o} == alive for o, v in hb.views(0.0).items())


# -- Algorithm 1's result (LBDD §3.2) and Algorithm 3 as printed (erratum LBDD-E4) -------------


def test_a_nodes_local_buckets_are_a_value() -> None:
    """LBDD §3.2, Algorithm 1: `LocalBuckets` is what a node computes from its view Pi; Algorithm
    3 as printed (`path_update_as_printed`, erratum LBDD-E4) hands back the very same object
    when the failed peer is not in a higher bucket, so the result must not be alterable in
    place (a frozen value)."""
    local = bucket_construction(NODES[0], SOURCE, [SOURCE, *NODES[:8]])
    lower = SOURCE  # bucket 0: never higher than the node's own bucket
    assert path_update_as_printed(local, SOURCE, lower) is local
    with pytest.raises(dataclasses.FrozenInstanceError):
        local.rank = local.rank + 1  # type: ignore[misc]


def test_a_failure_strikes_at_a_uniform_point_of_the_heartbeat_cycle() -> None:
    """D-L7 (docs/lbdd.md): every node heartbeats every `period` with its own phase, an offset
    in [0, period) drawn per node from the seeded generator (`heartbeat_views`: "Draw heartbeat
    phases"). Nodes failing at one same instant are therefore caught at uniformly spread points
    of their cycles: the time from the last heartbeat sent to the failure is uniform on
    [0, period), mean period / 2. The earliest detection of a failure by 299 observers, less the
    timeout, is that last heartbeat (delays at most 0.01 s). A phase drawn from [-1, period)
    instead folds the extra second onto [1, 2) of a 2 s period: mean 5/6 s instead of 1 s."""
    nodes = [f"10.1.{i // 250}.{i % 250 + 1}" for i in range(300)]
    churn = Churn(fail_at=dict.fromkeys(nodes, 50.0), period=2.0, timeout=3.0, max_delay=0.01)
    hb = heartbeat_views(SOURCE, nodes, churn, random.Random(1))
    first: dict[str, float] = {}
    for (_, p), t in hb.detected.items():
        first[p] = min(first.get(p, t), t)
    since_last_beat = [50.0 - (first[p] - churn.timeout) for p in nodes]
    assert all(-0.01 <= s < 2.0 for s in since_last_beat)
    assert abs(sum(since_last_beat) / len(since_last_beat) - 1.0) < 0.1


# -- the paper's table and figures (LBDD §4; reference/lbdd/figures.py; docs/lbdd.md) -----


@functools.cache
def _figs_2_3() -> tuple[LbddFigure, LbddFigure]:
    fig2, fig3 = figures_2_3()
    return fig2, fig3


def test_the_paper_test_bed_and_settings() -> None:
    """LBDD §4.1-§4.3: twelve PCs 10.3.17.{74, 97, 234, 90, 98, 64, 61, 184, 72, 88, 44, 68}
    (the first taken as publisher, docs/lbdd.md), 8 GB sent in 64 KB slices, simulated with
    n = 100..500 subscribers (Tab. 1) of randomly generated addresses plus the publisher; the
    simulation sends a sixteenth of the payload, 8 192 slices (figures.py)."""
    hosts = (74, 97, 234, 90, 98, 64, 61, 184, 72, 88, 44, 68)
    assert [f"10.3.17.{h}" for h in hosts] == TESTBED
    assert (PAYLOAD, SLICE) == (8 * 2**30, 64 * 2**10)
    assert SIM_PAYLOAD * 16 == PAYLOAD and SIM_PAYLOAD // SLICE == 8192
    assert SIM_SIZES == (100, 200, 300, 400, 500)
    source, tree = _tree(100, 0)
    assert len(tree) == 101 and source in tree  # n subscribers and the publisher


def test_table_1_states_the_paper_range_and_what_ours_does() -> None:
    """Tab. 1 (LBDD §4.3): the paper states depths within [5, 9]; the sentence counts the sizes
    whose mean depth is inside [5, 9] and lists the sizes whose maximum exceeds 9 (docs/lbdd.md,
    "Measured, next to the paper"); `ours` reads off the series."""
    t1 = table_1(seeds=3)
    assert t1.paper == {"depth low": 5.0, "depth high": 9.0}
    assert t1.bands == {"paper: depth 5–9": (5.0, 9.0)}
    mean, hi = dict(t1.series["ours: mean"]), dict(t1.series["ours: max"])
    assert sorted(mean) == list(SIM_SIZES)
    inside = sum(1 for m in mean.values() if 5 <= m <= 9)
    over = [int(n) for n, d in hi.items() if d > 9]
    assert f"inside the paper's [5, 9] for {inside} of 5 sizes" in t1.sentence
    assert f"exceeds 9 for n in {over}" in t1.sentence
    mode = dict(t1.series["ours: mode"])
    trees = [figures._tree(n, seed) for n in SIM_SIZES for seed in range(3)]
    inside_trees = sum(1 for src, kids in trees if 5 <= tree_depth(kids, src) <= 9)
    copies = sum(
        1 for (src, kids), n in zip(trees, [n for n in SIM_SIZES for _ in range(3)], strict=True)
        if sum(map(len, kids.values())) == n
    )
    assert 0 < inside_trees < len(trees) and copies == len(trees)  # both shares measured
    assert t1.ours == {
        "mean depth n=100": mean[100],
        "mean depth n=500": mean[500],
        "mode depth n=100": mode[100],
        "mode depth n=500": mode[500],
        "max depth n=500": hi[500],
        "address sets per n": 3.0,
        "share of sets with depth in [5, 9]": inside_trees / (3 * len(SIM_SIZES)),
        "share of trees with n copies": copies / (3 * len(SIM_SIZES)),
    }
    assert f"most frequent depth of one address set is {mode[100]:.0f} at n=100" in t1.sentence


def test_table_1_mode_is_the_most_frequent_depth_and_the_smallest_on_a_tie() -> None:
    """The mode series (the depth one address set most often gives, what a paper measuring
    one address set per n most likely reports) reads off the same trees as min/mean/max."""
    from collections import Counter

    from pubsub_spec.reference.lbdd.algorithms import tree_depth
    from pubsub_spec.reference.lbdd.figures import _tree

    t1 = table_1(seeds=5)
    for n, m in t1.series["ours: mode"]:
        counts = Counter(tree_depth(_tree(int(n), s)[1], _tree(int(n), s)[0]) for s in range(5))
        top = max(counts.values())
        assert m == min(d for d, c in counts.items() if c == top)


def test_figure_1_against_the_paper() -> None:
    """Fig. 1 (LBDD §4.2): the tree on the twelve PCs, n copies for n = 11 subscribers."""
    f1 = figure_1()
    assert f1.paper == {"copies in all": 11.0}
    assert len(f1.edges) == 11 and f1.ours["depth"] == 3.0


def test_figures_2_and_3_state_the_paper_values() -> None:
    """Fig. 2 and 3 (LBDD §4.2): the paper's LBDD rate "around 24 Mbit/s", its delays 3 020 s
    (LBDD) and 7 810 s (point to point) as rates of 8 GB x 8 / 1e6 Mbit over the delay, the
    point-to-point load reaching 100 % at six subscribers and LBDD's "always under 70 %";
    ours: 24.2 Mbit/s (2 840 s) for 11 subscribers (docs/lbdd.md D-L8), point to point busy
    100 % from one subscriber on ("Measured, next to the paper")."""
    fig2, fig3 = _figs_2_3()
    mbit = PAYLOAD * 8 / 1e6
    assert fig2.paper == {
        "LBDD rate": 24.0,
        "LBDD rate from 3020 s": mbit / 3020.0,
        "p2p rate from 7810 s": mbit / 7810.0,
        "LBDD delay s": 3020.0,
    }
    assert "predicts LBDD at 24.2 Mbit/s (2,840 s) for 11 subscribers" in fig2.sentence
    assert "the paper measured 3 020 s (22.8 Mbit/s)" in fig2.sentence
    assert fig3.paper == {"p2p reaches 100% at subscribers": 6.0, "LBDD load below": 0.70}
    assert fig3.bands == {"paper: LBDD below 70 %": (0.0, 0.70)}
    assert fig3.ours["p2p load, 1 subscriber"] == pytest.approx(1.0)
    lbdd_load = dict(fig3.series["ours: LBDD"])
    busy = sum(1 for y in lbdd_load.values() if y > 0.999)
    assert 0 < busy < len(lbdd_load)
    assert f"({busy} of {len(lbdd_load)} sizes)" in fig3.sentence


def test_a_publisher_without_subscribers_is_idle() -> None:
    """Fig. 3's load is the publisher's upload busy time over the distribution delay (LBDD
    §4.2 3)); with no subscriber nothing is sent, the delay is 0 and the load is 0, not 100 %."""
    _, fig3 = figures_2_3((0, 3))
    assert dict(fig3.series["ours: LBDD"])[0] == 0.0
    assert dict(fig3.series["ours: point to point"])[0] == 0.0


def test_point_to_point_load_is_read_at_the_smallest_size() -> None:
    """Fig. 3 (docs/lbdd.md: "Point to point is 100 % from one subscriber on"): `ours` reports
    the point-to-point load at the smallest size drawn, 100 %, where LBDD's publisher, with
    four subscribers, is busy a third of the time."""
    _, fig3 = figures_2_3((4,))
    assert fig3.ours["p2p load, 1 subscriber"] == pytest.approx(1.0)
    assert fig3.ours["LBDD load, 11 subscribers"] < 0.5  # `last` is the largest size drawn


def test_figure_4_reads_the_publisher_at_both_ends() -> None:
    """Fig. 4 (LBDD §4.3): contribution rate = copies sent / n; the publisher's at n = 100 and
    500, and its copies (rate x n), which the sentence states."""
    f4 = figure_4(seeds=2)
    pub = dict(f4.series["ours: publisher"])
    assert f4.ours == {
        "publisher n=100": pub[100],
        "publisher n=500": pub[500],
        "publisher copies n=100": pub[100] * 100,
        "publisher copies n=500": pub[500] * 500,
    }
    assert f"{pub[100] * 100:.1f} at n=100, {pub[500] * 500:.1f} at n=500" in f4.sentence


def test_build_lbdd_figures_builds_the_ones_asked_for() -> None:
    """`pubsub-spec figures --only` (docs/lbdd.md "Measured, next to the paper": ids LT1,
    L1-L4): each id asked for is built, in that order, and no other."""
    assert [f.id for f in build_lbdd_figures(1, ("L1", "L4"))] == ["L1", "L4"]
    assert [f.id for f in build_lbdd_figures(1, ("LT1",))] == ["LT1"]


@pytest.mark.parametrize(("depth", "inside"), [(5, 5), (9, 5), (4, 0), (10, 0)])
def test_table_1_range_is_the_closed_interval_5_to_9(
    monkeypatch: pytest.MonkeyPatch, depth: int, inside: int
) -> None:
    """Tab. 1 (LBDD §4.3): "the depth ... is at the intersection of [5, 9]", a closed range: a
    mean depth of exactly 5 or 9 is inside it (docs/lbdd.md "Measured, next to the paper").
    Pinned with every tree's depth set to one value."""
    monkeypatch.setattr(figures, "tree_depth", lambda tree, source: depth)
    t1 = table_1(seeds=1)
    assert f"inside the paper's [5, 9] for {inside} of 5 sizes" in t1.sentence
