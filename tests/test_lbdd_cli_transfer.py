"""`pubsub-spec lbdd` and the payload transfer model (LBDD §4)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pubsub_spec.cli import main
from reference.lbdd import build_tree
from reference.lbdd_transfer import over_tree, point_to_point


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
