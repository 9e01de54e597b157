"""Tests that kill mutants of reference/thesis/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

import csv
import dataclasses
import os
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import pytest

from pubsub_spec.cmd_figures import _cdf_masses, _text_box
from pubsub_spec.figures_lbdd import footer
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace, initial_node_names
from pubsub_spec.reference.lbdd.figures import figure_4
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.figures import (
    SCALES,
    THESIS_RTT,
    THESIS_TOP_125,
    DeliveryDigest,
    RunStats,
    Scale,
    _saves,
    build_figures,
    fig_4_2,
    fig_4_3,
    fig_4_4,
    fig_4_5,
    fig_4_6,
    fig_4_7,
    fig_4_8,
    fig_4_9,
    fig_4_10,
    hist_cdf,
    ranked,
    streaming_oracle,
    sub_digest,
    workload,
)
from pubsub_spec.reference.thesis.lnrt import is_partition
from pubsub_spec.reference.thesis.messages import (
    TYPE_OF,
    EventDelivery,
    InsertSub,
    LeafUpdate,
    ProbePub,
    ProbePubMulticast,
    ProbeSub,
    TransferSub,
    event_size,
    point_size,
    size_of,
    sub_size,
)
from pubsub_spec.reference.thesis.metrics import TreeMetrics
from pubsub_spec.reference.thesis.probes import rnd_region_probe
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.space import (
    Square,
    TargetArea,
    parent,
    target_area,
    zone_bounds,
)
from pubsub_spec.reference.thesis.tree import StoredPoint
from pubsub_spec.reference.thesis.workload import (
    AttributeProfile,
    _value,
    thesis_schema,
    zipf_event,
)

# -- logic space and zones (thesis §3.2, Fig. 3.1; §3.2.1; decision D-SPACE) -------------------

TEN = Attribute("a", "float", 0.0, 10.0)


def test_zone_bounds_halve_x_then_y_exactly() -> None:
    """§3.2.1: depth 0 splits on x, depth 1 on y; child 0 is the lower half, child 1 the upper
    (D-SPACE). On [0, 10] with max depth 4 (K = 2): node "1" is x in [5, 10], node "10" is
    x in [5, 10], y in [0, 5], node "0110" is x in [2.5, 5], y in [5, 7.5] (exact rationals)."""
    sq = Square.of(TEN, 4)
    assert sq.k == 2
    f = Fraction
    assert zone_bounds("", sq) == (f(0), f(10), f(0), f(10))
    assert zone_bounds("1", sq) == (f(5), f(10), f(0), f(10))
    assert zone_bounds("10", sq) == (f(5), f(10), f(0), f(5))
    assert zone_bounds("0110", sq) == (f(5, 2), f(5), f(5), f(15, 2))


def test_target_area_is_min_to_v_by_v_to_max() -> None:
    """§3.2, Fig. 3.1: the target area of value v is [min, v] x [v, max]; as grid cells (K = 2
    on [0, 10], cells of width 2.5) v = 3 lies in cell 1, min in cell 0, max in cell 3."""
    sq = Square.of(TEN, 4)
    assert target_area(sq, 3, None) == TargetArea(0, 1, 1, 3)
    assert target_area(sq, None, None) == TargetArea(0, 3, 0, 3)  # absent: the whole square


def test_parent_drops_the_last_bit() -> None:
    """§3.2.1: a child's identifier is its parent's bit string plus one bit ("0" or "1")."""
    assert parent("0110") == "011"
    assert parent("1") == ""


# -- LeafNodeRoutingTable (thesis §3.2.2, Table 3.1; decision D-LNRT) --------------------------


def test_lnrt_records_lie_strictly_below_their_owner() -> None:
    """D-LNRT: the records of a node are the leaves of a full binary tree below it. A table
    belongs to a node that has split (Program 3.1, line 52: it knows its two children), so a
    record outside the owner's zone, or the owner itself, is not a partition of it."""
    assert is_partition("0", ["00", "01"])
    assert is_partition("0", ["00", "010", "011"])
    assert not is_partition("0", ["10", "11"])
    assert not is_partition("0", ["00", "01", "1"])
    assert not is_partition("0", ["0"])


# -- RndRegionProbe (thesis §3.4.1, Program 3.3; decision D-PARAM) -----------------------------


def test_region_probe_selects_only_strictly_below_minlevel() -> None:
    """Program 3.3, line 17: a node is selected early only if `level > minlevel` (kept strict,
    D-PARAM). With p = 1 every node that may be selected is: over the whole square with
    minlevel 2 the probe set is the eight nodes of level 3, never the root."""
    full = TargetArea(0, 1023, 0, 1023)
    probes = rnd_region_probe(full, 10, 2, 10, 1.0, random.Random(0))
    assert sorted(probes) == [format(i, "03b") for i in range(8)]


# -- message sizes (decision D-MSG: 48-byte header, 20 per id, 16 per predicate, 8 per value) ---

SUB = Subscription("s1", "n1", "s", (Predicate("a", 0, 10),))
POINT = StoredPoint(SUB, "a", Segment(0, 0, 10, True), "0110", 0)
EV = Event("e1", "n0", "s", (("a", 5), ("b", 7)))


def test_message_sizes_worked_example() -> None:
    """D-MSG and the model of reference/thesis/messages.py (module doc: header plus payload),
    computed by hand: a subscription is id 20 + its id and schema names + 16 and the name per
    predicate (20 + 2 + 1 + 17 = 40); a stored point adds its base name and 24 (65); an event is
    id 20 + names + 8 and the name per value (20 + 2 + 1 + 2 * 9 = 41)."""
    assert sub_size(SUB) == 40
    assert point_size(POINT) == 65
    assert event_size(EV) == 41
    assert size_of(ProbeSub(POINT, "s/a:01")) == 48 + 65 + 6
    assert size_of(InsertSub(POINT, "s/a:01")) == 48 + 65 + 6
    # LeafNodeUpdateMessage: the split node and its two children (two bit strings of d + 1)
    assert size_of(LeafUpdate("s/a", "01", "s/a:0")) == 48 + 3 + 4 + 32
    assert size_of(LeafUpdate("s/a", "", "s/a:")) == 48 + 3 + 0 + 32  # the root splits
    two = (POINT, dataclasses.replace(POINT, sub=dataclasses.replace(SUB, id="s2")))
    transfer = TransferSub("s/a", "s/a:010", two, frozenset({"e1", "e2"}))
    assert size_of(transfer) == 48 + 3 + 7 + 2 * 65 + 2 * 20
    assert size_of(ProbePub(EV, "s/a", "s/a:01")) == 48 + 41 + 3 + 6
    multicast = ProbePubMulticast(EV, (("s/a", "01"), ("s/b", "")))
    assert size_of(multicast) == 48 + 41 + (3 + 2 + 20) + (3 + 0 + 20)
    delivery = EventDelivery(EV, (("n1", ("s1", "s22")), ("n2", ("x",))), 0.0)
    assert size_of(delivery) == 48 + 41 + (20 + 2 + 3) + (20 + 1)


def test_more_payload_never_makes_a_message_smaller() -> None:
    """D-MSG counts bytes at every hop: a message carrying more (a longer destination, a deeper
    split, more points, a larger event) costs at least as much."""
    assert size_of(ProbeSub(POINT, "s/a:0110")) > size_of(ProbeSub(POINT, "s/a:"))
    assert size_of(LeafUpdate("s/a", "0110", "x")) > size_of(LeafUpdate("s/a", "0", "x"))
    one = TransferSub("s/a", "s/a:0", (POINT,))
    assert size_of(one) > size_of(TransferSub("s/a", "s/a:0"))
    big = Event("e1", "n0", "s", (("a", 5), ("b", 7), ("c", 1)))
    assert size_of(EventDelivery(big, (), 0.0)) > size_of(EventDelivery(EV, (), 0.0))


def test_every_message_type_is_an_immutable_value() -> None:
    """A message sent is delivered later by the discrete-event engine (docs/design.md; the same
    message object may stay queued while its sender goes on): it is a frozen, hashable value,
    as the other six of §4.2.1 are."""
    assert len(TYPE_OF) == 7
    for cls in TYPE_OF:
        assert dataclasses.is_dataclass(cls)
        assert cls.__dataclass_params__.frozen, cls  # type: ignore[attr-defined]
    probe = ProbePub(EV, "s/a", "s/a:01")
    assert hash(probe) == hash(ProbePub(EV, "s/a", "s/a:01"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        probe.target = "s/a:1"  # type: ignore[misc]


# -- the tree's figures and the runner (thesis §4.3; docs/thesis.md steps 1-4) -----------------

SCHEMA = Schema("s", (Attribute("a", "int", 0, 100), Attribute("b", "int", 0, 100)))
NODES = initial_node_names(4)


def test_tree_figures_start_at_zero_and_a_root_only_tree_has_depth_zero() -> None:
    """§4.3's figures count from the start of a run: a fresh TreeMetrics is all zeros. One
    subscription never overflows a leaf (capacity rand(10, 30), Table 4.1): the tree is its
    roots, of depth 0 (§3.2.1)."""
    fresh = TreeMetrics()
    assert (fresh.splits, fresh.overflow, fresh.max_depth, fresh.jump_backs) == (0, 0, 0, 0)
    t = Trace(
        (SCHEMA,),
        (
            Subscribe(0, Subscription("x", NODES[0], "s", (Predicate("a", 0, 10),))),
            Publish(1, Event("e", NODES[1], "s", (("a", 5), ("b", 1)))),
        ),
        initial_nodes=4,
    )
    result = run_trace(t)
    assert isinstance(result.metrics, TreeMetrics)
    assert result.metrics.max_depth == 0 and result.metrics.splits == 0
    assert [(d.event_id, d.sub_id) for d in result.deliveries] == [("e", "x")]


def test_run_trace_validates_by_default() -> None:
    """docs/thesis.md step 1: a trace is validated before it runs; a range outside the
    attribute's domain is an InputError naming the line and field."""
    bad = Trace(
        (SCHEMA,),
        (Subscribe(0, Subscription("x", NODES[0], "s", (Predicate("a", 0, 1000),))),),
        initial_nodes=4,
    )
    with pytest.raises(InputError, match=r"predicates\.a"):
        run_trace(bad)


# -- the workload (thesis §4.1.2; docs/trace-format.md "Workload") -----------------------------


class _Half(random.Random):
    """A generator whose every draw is 0.5."""

    def random(self) -> float:
        return 0.5


def test_value_is_uniform_in_its_zipf_sub_range() -> None:
    """§4.1.2: a value is drawn uniformly in the sub-range picked by Zipf rank; rank 1 is the
    lowest sub-range (docs/trace-format.md). On [0, 100] with sub-ranges of 10 and skew 0 the
    ranks are uniform, P(rank <= k) = k/10: the draw 0.5 picks rank 5 = [40, 50] and the
    uniform draw 0.5 its middle, 45."""
    prof = AttributeProfile(1.0, 0.0, 10.0, 0.0, 0.5)
    assert _value(_Half(), Attribute("a", "float", 0.0, 100.0), prof) == 45.0


def test_every_sub_range_receives_values() -> None:
    """With skew 0 (uniform ranks, §4.1.2) 400 events put values in each of the 10 sub-ranges
    of Attr4's domain [0, 200] (sub-ranges of 20), the lowest and the highest included."""
    schema = thesis_schema()
    prof = AttributeProfile(1.0, 0.0, 20.0, 0.0, 0.5)
    profiles = {a.name: prof for a in schema.attributes}
    hit: set[int] = set()
    for i in range(400):
        v = zipf_event(3, i, schema, profiles, "n0", f"e{i}").value("Attr4")
        assert v is not None and 0.0 <= v <= 200.0
        hit.add(min(int(v // 20), 9))
    assert hit == set(range(10))


# -- Chapter 4 figures (reference/thesis/figures.py; docs/thesis.md "Chapter 4 figures") -------


def _stats(
    nodes: int,
    node_bytes: Sequence[int],
    *,
    latency: tuple[float, int, float] = (0.0, 0, 0.0),
    hist: dict[int, int] | None = None,
) -> RunStats:
    """A run of `nodes` peers where peer i sent node_bytes[i] bytes of ProbePub over 1 event
    and 1 subscription; latency = (sum, deliveries, max)."""
    peer_bytes = {f"n{i}": Counter({"ProbePub": b}) for i, b in enumerate(node_bytes)}
    total, count, top = latency
    return RunStats(
        f"sweep-{nodes}",
        nodes,
        1,
        1,
        peer_bytes,
        [100.0],
        Counter(hist or {}),
        count,
        total,
        top,
        None,
        0,
        0,
    )


def test_delivery_digest_is_the_sum_of_64_bit_digests_mod_2_64() -> None:
    """docs/thesis.md: each delivery is folded into a per-event count and a 64-bit digest of
    subscription ids (DeliveryDigest: the sum of their digests mod 2^64, order-independent)."""
    digests = [sub_digest(f"s{i}") for i in range(32)]
    assert all(0 <= d < 1 << 64 for d in digests)
    assert max(digests) >= 1 << 63  # 64 bits are used, not fewer
    d = DeliveryDigest()
    expected: dict[str, int] = {}
    for e in range(8):
        ids = [f"s{i}" for i in range(e, e + 5)]
        for sid in reversed(ids):
            d.add(f"e{e}", sid)
        expected[f"e{e}"] = sum(sub_digest(s) for s in ids) % (1 << 64)
        assert sum(sub_digest(s) for s in ids) >= 1 << 64  # the modulus is exercised
    assert d.digest == expected and d.count == Counter({e: 5 for e in expected})
    assert any(v >= 1 << 63 for v in expected.values())  # the top bit is kept


def test_figure_scales_are_the_documented_sizes() -> None:
    """docs/thesis.md: `--scale full` is Table 4.1 (1000 nodes x 5 subscriptions x 10,000
    events) and the §4.3.3 sweep of 1000, 1740, 3000, 4000, 5000 nodes (Table 4.5's sizes);
    `--scale small` is 100 x 5 x 400, a sweep of a tenth of those sizes (100-500) x 100 events."""
    full, small = SCALES["full"], SCALES["small"]
    assert (full.nodes, full.subs_per_node, full.events) == (1000, 5, 10000)
    assert full.sweep_nodes == (1000, 1740, 3000, 4000, 5000) == tuple(THESIS_RTT)
    assert full.sweep_events == 10000
    assert (small.nodes, small.subs_per_node, small.events) == (100, 5, 400)
    assert small.sweep_nodes == tuple(n // 10 for n in full.sweep_nodes)
    assert small.sweep_events == 100


def test_streaming_oracle_reports_progress_over_the_publishes() -> None:
    """Progress(done, total) counts the trace's events: total = the number of Publish ops."""
    t = Trace(
        (SCHEMA,),
        (
            Subscribe(0, Subscription("x", NODES[0], "s", (Predicate("a", 0, 10),))),
            Publish(1, Event("e1", NODES[1], "s", (("a", 5), ("b", 1)))),
            Publish(2, Event("e2", NODES[1], "s", (("a", 50), ("b", 1)))),
        ),
        initial_nodes=4,
    )
    calls: list[tuple[int, int]] = []
    out = streaming_oracle(t, lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]
    assert out.count == Counter({"e1": 1})


def test_latency_mean_cdf_and_ranks() -> None:
    """Fig. 4.3's mean is sum / deliveries (not floored); a histogram's CDF rises to 1 at its
    last bin's upper edge; Figs. 4.6/4.8 rank nodes from the busiest (rank 1) down."""
    assert _stats(1, [0], latency=(7.5, 2, 5.0)).mean_latency == 3.75
    assert _stats(1, [0]).mean_latency == 0.0
    assert hist_cdf(Counter({0: 1, 2: 3})) == [(1.0, 0.25), (3.0, 1.0)]
    assert ranked([3.0, 1.0, 2.0], 2) == [(1.0, 3.0), (2.0, 2.0)]


def test_thesis_values_beside_our_figures_are_the_thesis_text() -> None:
    """The thesis' stated values (thesis §4.3): "14.32 bytes per subscription ... about 78%
    ... within 20 bytes/sub" (4.2); "The average latency is 333ms" (4.3); "1.32k bytes per
    event" and about 7 nodes up to 11k (4.4); "reduced from 12.2k to 9.4k ... all the top 100
    nodes' bandwidth costs are decreased" (4.6); "2.12k bytes/event without the load balancing
    ... about 50% to 1.05k" (4.7); "from 330ms to 430ms" (4.9); Table 4.5: 175 180 176 177 176."""
    r = _stats(4, [10, 20, 30, 40], latency=(400.0, 2, 300.0), hist={100: 1, 300: 1})
    f42 = fig_4_2(r).thesis
    assert (f42["mean_bytes_per_sub"], f42["frac_le_20"], f42["frac_le_60"]) == (14.32, 0.78, 0.98)
    assert fig_4_3(r).thesis["mean_ms"] == 333.0
    f44 = fig_4_4(r).thesis
    assert (f44["mean_bytes_per_event"], f44["max"]) == (1320.0, 11000.0)
    assert f44["max_over_mean"] == 11000.0 / 1320.0
    f46 = fig_4_6(r, r).thesis
    assert f46 == {"max_unicast": 12200.0, "max_multicast": 9400.0, "top_lower_frac": 1.0}
    f47 = fig_4_7(r, r).thesis
    assert (f47["mean_no_cutoff"], f47["mean_cutoff"]) == (2120.0, 1050.0)
    f49 = fig_4_9([r, r], SCALES["full"].sweep_nodes).thesis
    assert (f49["avg_ms@1000"], f49["avg_ms@5000"]) == (330.0, 430.0)
    assert THESIS_RTT == {1000: 175.0, 1740: 180.0, 3000: 176.0, 4000: 177.0, 5000: 176.0}


def test_publication_bandwidth_ratio_without_traffic_is_zero() -> None:
    """Fig. 4.4: the busiest node over the mean; with no bytes sent there is no ratio and the
    figure reports 0 (a ratio of byte counts is never negative)."""
    assert fig_4_4(_stats(3, [0, 0, 0])).ours["max_over_mean"] == 0.0
    assert fig_4_4(_stats(2, [10, 30])).ours["max_over_mean"] == 1.5


def test_sweep_sentences_name_the_first_and_last_sizes() -> None:
    """Figs. 4.9/4.10 (§4.3.3): the sentence compares the smallest and the largest network of
    the sweep: latency growth from the first to the last size, mean and maximum bandwidth per
    node at the first and at the last size."""
    sweep = [
        _stats(100, [10, 30], latency=(200.0, 1, 200.0)),
        _stats(200, [20, 60], latency=(250.0, 1, 250.0)),
        _stats(300, [40, 80], latency=(300.0, 1, 300.0)),
    ]
    assert "grows +50 % from 100 to 300 nodes" in fig_4_9(sweep, (100, 300)).sentence
    f410 = fig_4_10(sweep)
    assert f410.series["average"] == [(100.0, 20.0), (200.0, 40.0), (300.0, 60.0)]
    assert "goes 20 -> 60 B/event and the maximum 30 -> 80 (thesis" in f410.sentence


def test_build_figures_checks_against_the_oracle_by_default() -> None:
    """docs/thesis.md: `figures` compares every run with the (streamed) oracle unless
    `--no-check`; a run's subscriptions and events are its trace's. Table 4.5's mean RTT at
    100 nodes, seed 1, is the committed small figure set's (docs/figures/fig_T4_5.csv)."""
    tiny = Scale("tiny", 6, 1, 3, (100,), 3)
    figs, runs = build_figures(tiny, ("4.1", "T4.5"))
    run = runs["thesis"]
    trace = workload(6, 1, 3, 1, "thesis")
    assert run.agree is True and run.disagreeing_events == 0
    assert run.subs == sum(1 for op in trace.ops if isinstance(op, Subscribe)) > 0
    assert run.events == 3
    assert [f.id for f in figs] == ["4.1", "T4.5"]
    committed = Path(__file__).resolve().parent.parent / "docs" / "figures" / "fig_T4_5.csv"
    with committed.open() as fh:
        rows = {(r["series"], float(r["x"])): float(r["y"]) for r in csv.DictReader(fh)}
    assert figs[1].ours["rtt@100"] == rows[("ours", 100.0)]
    assert all(rows[("thesis", float(n))] == v for n, v in THESIS_RTT.items())


class _PidLog:
    """A picklable progress callback that records which process calls it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, done: int, total: int) -> None:
        with self.path.open("a") as fh:
            fh.write(f"{os.getpid()}\n")


def test_jobs_run_independent_runs_in_worker_processes(tmp_path: Path) -> None:
    """build_figures: "with jobs > 1 the independent runs go to that many worker processes"
    (`figures --jobs`: worker processes for the independent runs); a single run has nothing
    to run beside and stays in this process. The figures are the same either way."""
    tiny = Scale("tiny", 6, 1, 3, (6,), 3)

    def logged(name: str) -> _PidLog:
        return _PidLog(tmp_path / f"{name}.pids")

    one, _ = build_figures(tiny, ("4.1",), logged, check=False, jobs=2)
    assert set((tmp_path / "thesis.pids").read_text().split()) == {str(os.getpid())}
    (tmp_path / "thesis.pids").unlink()
    two, runs = build_figures(tiny, ("4.5",), logged, check=False, jobs=2)
    for name in ("thesis", "unicast-probes"):
        pids = set((tmp_path / f"{name}.pids").read_text().split())
        assert pids and str(os.getpid()) not in pids, name
    serial, _ = build_figures(tiny, ("4.5",), check=False, jobs=1)
    assert two[0].ours == serial[0].ours
    assert [f.id for f in one] == ["4.1"] and set(runs) == {"thesis", "unicast-probes"}


def test_top_ranks_are_the_thesis_share_of_the_nodes() -> None:
    """Figs. 4.6 and 4.8 rank the thesis' top 100 and top 125 of 1000 nodes (§4.3.2): on 100
    nodes that is the top 10 and the top 12, never every node (which would compare nothing)."""
    r = _stats(100, list(range(100)))
    f46, f48 = fig_4_6(r, r), fig_4_8(r, r)
    assert [len(s) for s in f46.series.values()] == [10, 10] and "top 10 nodes" in f46.title
    assert [len(s) for s in f48.series.values()] == [12, 12] and "Top 12 " in f48.title
    assert "top_lower_frac" in f46.ours and "Top 10 of 100 nodes" in f46.sentence
    assert _stats(1000, [1] * 1000).nodes * THESIS_TOP_125 == 125


def test_a_negative_saving_is_said_as_a_cost() -> None:
    """Fig. 4.5's sentence: multicast that sends more probe bytes "costs x % more", never
    "saves -x %"."""
    assert _saves(29.14) == "saves 29.1 %" and _saves(-1.0) == "costs 1.0 % more"
    more = fig_4_5(_stats(2, [100, 100]), _stats(2, [101, 101]))
    assert "costs 1.0 % more" in more.sentence and "saves -" not in more.sentence


def test_latency_histogram_weighs_bins_by_deliveries() -> None:
    """Fig. 4.3: the histogram drawn from the latency CDF weighs each 1-ms bin by its share of
    deliveries (the CDF's step), not one count per distinct bin."""
    series = hist_cdf(Counter({10: 3, 20: 1}))
    xs, weights = _cdf_masses(series)
    assert xs == [11.0, 21.0] and weights == [0.75, 0.25]


def test_footers_show_every_value() -> None:
    """The PNG footers list all of ours and of the paper's values, not the first few; an LBDD
    figure whose paper gives no value says so instead of an empty "paper:"."""
    r = _stats(100, list(range(100)))
    box = _text_box(fig_4_8(r, r)).replace("\n    ", " ")
    assert all(k in box for k in fig_4_8(r, r).ours)
    assert "thesis: max_no_cutoff ≈ 14,000" in box  # read off the axis: marked uncertain
    f4 = figure_4(2)
    assert f4.paper == {} and "paper: states the trend only" in footer(f4)
    assert all(k in footer(f4).replace("\n    ", " ") for k in f4.ours)
