"""The nine-system comparison (pubsub_spec/compare.py, run by benchmarks/bench_compare.py; the
page docs/comparison.md): its core at the generators' tiny profile gives one row per system and
workload, every run agrees with the oracle, and its numbers are the metrics' and the
observations' counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pubsub_spec import compare as bc
from pubsub_spec.conformance.observed import claim_of
from pubsub_spec.conformance.protocol_rules import DISSEMINATION, SUBSCRIPTION
from pubsub_spec.reference.common.ops import Publish, Subscribe
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.observe import state
from pubsub_spec.reference.sim.run import run_trace

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runs() -> list[bc.Run]:
    return bc.run_all(("tiny",), (1,))


def test_one_row_per_system_and_workload(runs: list[bc.Run]) -> None:
    rows = bc.aggregate(runs)
    pairs = [(r.workload, r.system) for r in rows]
    assert sorted(pairs) == sorted((w, s) for w in bc.WORKLOADS for s in SYSTEMS)
    text = bc.tables(rows, ("tiny",))
    traffic = [line for line in text if line.startswith("| ") and "agree" in line]
    assert len(traffic) == len(bc.WORKLOADS) * len(SYSTEMS)
    for r in rows:
        assert not r.skipped, r  # every system supports these three workloads
        assert r.oracle == "agree", r
        assert r.publishes > 0 and r.subscribes > 0


def test_numbers_are_the_metrics_counts(runs: list[bc.Run]) -> None:
    """msgs/pub = the metrics' sends of the family's DISSEMINATION types / publishes (and hops
    the network messages), recomputed from an independent run of the same trace."""
    rows = {(r.workload, r.system): r for r in bc.aggregate(runs)}
    for workload in bc.WORKLOADS:
        trace = bc.make_trace(workload, "tiny", 1)
        pubs = sum(isinstance(op, Publish) for op in trace.ops)
        subs = sum(isinstance(op, Subscribe) for op in trace.ops)
        for name, info in SYSTEMS.items():
            claim = claim_of(info.default_variant)
            assert claim is not None
            m = run_trace(trace, info.variant(info.default_variant).make).metrics
            row = rows[(workload, name)]
            dis, sub = DISSEMINATION[claim], SUBSCRIPTION[claim]
            assert row.per("msgs", "publish") == pytest.approx(sum(m.sends[k] for k in dis) / pubs)
            assert row.per("hops", "publish") == pytest.approx(
                sum(m.messages[k] for k in dis) / pubs
            )
            assert row.per("bytes", "subscribe") == pytest.approx(
                sum(m.bytes[k] for k in sub) / subs
            )
            assert row.sends["publish"] > 0, (workload, name)


def test_observed_sends_match_the_metrics(runs: list[bc.Run]) -> None:
    """The send observations of each side are the metrics' sends of that side (the
    observation log and the metrics count the same messages)."""
    for r in runs:
        for side in ("subscribe", "publish"):
            assert r.observed_sends[side] == r.sends[side], (r.system, r.workload, side)


def test_storage_counts_live_entries(runs: list[bc.Run]) -> None:
    """Systems that store each subscription once (mcgroups at its server, the thesis as one
    leaf point: no cut-off remapping in these traces) hold exactly the subscriptions still
    active at the end; per-node lists cover every node the system has."""
    for r in runs:
        assert len(r.storage) == len(r.sent) >= 1
        if r.system in ("mcgroups", "thesis"):
            assert sum(r.storage) == r.active_subs, (r.system, r.workload)
        if r.system in ("siena", "kyra", "tam-basic", "octopia-snr", "tid"):
            assert sum(r.storage) >= r.active_subs, (r.system, r.workload)


def test_storage_of_a_split_leaf_moves_to_its_children() -> None:
    s = bc.Storage("thesis")
    for sub in ("s1", "s2"):
        s(state("store", "n1", sub=sub, tree="t/x", bits="", segment=0))
    s(state("split", "n1", tree="t/x", bits="", children=["0", "1"]))
    s(state("store", "n2", sub="s1", tree="t/x", bits="0", segment=0))
    s(state("store", "n3", sub="s2", tree="t/x", bits="1", segment=0))
    s(state("remove", "n3", sub="s2", tree="t/x", bits="1", segment=0, lost=False))
    assert s.per_node() == {"n2": 1}
    k = bc.Storage("kyra")
    k(state("filter-add", "a", sub="s1", tree=0, direction="b", proxy="c"))
    k(state("filter-add", "a", sub="s1", tree=1, direction="b", proxy="c"))
    k(state("filter-remove", "a", sub="s1", tree=0, direction="b", proxy="c"))
    assert k.per_node() == {"a": 1}


def test_a_missing_feature_is_a_skip_with_its_reason() -> None:
    runs = bc.run_all(("tiny",), (1,), systems=("kyra",), workloads=("churn",))
    (row,) = bc.aggregate(runs)
    assert row.oracle == "skipped (needs unsupported feature(s): churn)"
    (line,) = [x for x in bc.traffic_table([row]) if x.startswith("| churn")]
    assert "skipped (needs unsupported feature(s): churn)" in line


def test_percentile_is_nearest_rank() -> None:
    xs = [float(x) for x in range(1, 101)]
    assert (bc.percentile(xs, 50), bc.percentile(xs, 95), bc.percentile(xs, 99)) == (50, 95, 99)
    assert bc.percentile([3.0], 99) == 3.0


def test_page_states_command_sizes_and_reading(runs: list[bc.Run]) -> None:
    text = bc.page(bc.aggregate(runs), ("tiny",), (1,), 1.0, 1, quick=False)
    assert "python -m benchmarks.bench_compare --jobs 1 --write docs/comparison.md" in text
    assert "`tiny`: 6 nodes, 12 subscriptions, 12 publications" in text
    assert "## Reading" in text and "machine:" in text
    for name in SYSTEMS:
        assert f"| {name} |" in text


def test_committed_page_has_every_system_and_workload() -> None:
    text = (ROOT / "docs" / "comparison.md").read_text(encoding="utf-8")
    for profile in bc.DEFAULT_PROFILES:
        assert bc.profile_line(profile) in text
    for w in bc.WORKLOADS:
        for s in SYSTEMS:
            rows = re.findall(rf"^\| {re.escape(w)} \| {re.escape(s)} \|", text, re.M)
            # two tables (traffic, load) per profile
            assert len(rows) == 2 * len(bc.DEFAULT_PROFILES), (w, s)
    assert "DISAGREE" not in text
    # the page is the code's: its fixed parts are the current ones
    assert bc.READING in text and "\n".join(bc.classification()) in text
    assert "comparison.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_figures_writes_the_comparison_page(tmp_path: Path) -> None:
    """`pubsub-spec figures --only CMP` (the cross-family figure set) writes the page."""
    from pubsub_spec.cmd_figures import figure_sets
    from pubsub_spec.properties.contract import FigureOptions, contracts

    (cmp,) = [f for f in figure_sets() if "CMP" in f.ids]
    family_ids = {i for c in contracts() for f in c.figures for i in f.ids}
    assert "CMP" not in family_ids
    written = bc.write_figures(tmp_path, ["CMP"], FigureOptions("small", jobs=1))
    assert (written.count, written.disagree) == (1, ())
    assert "[comparison.md](comparison.md)" in written.index_text
    text = (tmp_path / "comparison.md").read_text(encoding="utf-8")
    assert bc.profile_line("small") in text and cmp.writer.startswith("pubsub_spec.compare:")
    assert text.count("| zipf | thesis |") == 2
