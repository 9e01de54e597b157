"""`pubsub-spec lbdd` and the payload transfer model (LBDD §4)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pubsub_spec.cli import main
from pubsub_spec.reference.lbdd.algorithms import build_tree
from pubsub_spec.reference.lbdd.transfer import (
    contribution_rates,
    over_tree,
    point_to_point,
    random_uploads,
)


def test_cli_prints_tree_and_writes_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "t.svg"
    assert main(["lbdd", "--random", "20", "--seed", "3", "--svg", str(svg)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("10.0.0.1  bucket 0")
    assert "20 subscribers, depth" in out[-2]
    root = ET.parse(svg).getroot()
    assert (
        root.tag.endswith("svg") and len(root.findall("{http://www.w3.org/2000/svg}circle")) == 21
    )


def test_tree_beats_point_to_point_and_spreads_the_load() -> None:
    members = [f"10.1.{i // 200}.{i % 200}" for i in range(100)]
    tree = build_tree("10.0.0.1", members)
    lbdd = over_tree(tree, "10.0.0.1", 8e6, 64e3, 1.25e8)
    p2p = point_to_point("10.0.0.1", members, 8e6, 64e3, 1.25e8)
    assert lbdd.completion_s < p2p.completion_s / 5
    assert p2p.sent_bytes["10.0.0.1"] == pytest.approx(100 * 8e6)
    assert lbdd.sent_bytes["10.0.0.1"] <= 0.1 * p2p.sent_bytes["10.0.0.1"]
    assert sum(lbdd.sent_bytes.values()) == pytest.approx(100 * 8e6)  # exactly n copies


def test_store_and_forward_timing_on_a_chain_by_hand() -> None:
    """D-L5: a chain s -> a -> b, 3 slices of 1 byte, upload 1 B/s at s and 0.5 B/s at a: a has
    slice i at i+1; a sends slice i at max(free, i+1) taking 2 s: b has slices at 3, 5, 7."""
    chain = {"s": ["a"], "a": ["b"], "b": []}
    t = over_tree(chain, "s", 3.0, 1.0, {"s": 1.0, "a": 0.5, "b": 9.0})
    assert t.finished_s == {"a": 3.0, "b": 7.0}
    assert t.completion_s == 7.0 and t.rate_bps == pytest.approx(3.0 / 7.0)
    assert t.sent_bytes == {"s": 3.0, "a": 3.0, "b": 0.0}


def test_point_to_point_is_sequential_at_the_publisher() -> None:
    t = point_to_point("s", ["a", "b", "a", "s"], 2.0, 1.0, 1.0)
    assert t.finished_s == {"a": 3.0, "b": 4.0}  # slice 0 to a, b; slice 1 to a, b


def test_contribution_rates_sum_to_one_and_per_node_bandwidths_are_seeded() -> None:
    """LBDD §4.3: contribution rate = copies sent / n; every draw from the given generator."""
    members = [f"10.2.0.{i}" for i in range(1, 60)]
    tree = build_tree("10.0.0.1", members)
    rates = contribution_rates(tree)
    assert sum(rates.values()) == pytest.approx(1.0)
    assert rates["10.0.0.1"] == len(tree["10.0.0.1"]) / len(members)
    nodes = ["10.0.0.1", *members]
    ups = random_uploads(nodes, random.Random(5), 1e6, 1e7)
    assert ups == random_uploads(list(reversed(nodes)), random.Random(5), 1e6, 1e7)
    assert all(1e6 <= u <= 1e7 for u in ups.values())
    slow = over_tree(tree, "10.0.0.1", 1e6, 64e3, {n: 1e6 for n in nodes})
    mixed = over_tree(tree, "10.0.0.1", 1e6, 64e3, ups)
    assert mixed.completion_s < slow.completion_s  # every node at least as fast, most faster
