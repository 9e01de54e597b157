"""OctopiA's figure writer (pubsub_spec/octopia_eval.py, declared in its contract):
`pubsub-spec figures --only O7` writes Fig. 7's rows of the claims table on `octopia.md` (the
heavy figures O9, O11 and OB run the benchmark's experiments and are not run here)."""

from __future__ import annotations

from pathlib import Path

from pubsub_spec.cmd_figures import figure_sets
from pubsub_spec.octopia_eval import FIGURE_IDS, write_figures
from pubsub_spec.properties.contract import FigureOptions


def test_octopia_figures_are_declared() -> None:
    sets = [f for f in figure_sets() if f.writer == "pubsub_spec.octopia_eval:write_figures"]
    assert len(sets) == 1 and sets[0].ids == FIGURE_IDS


def test_fig7_page(tmp_path: Path) -> None:
    written = write_figures(tmp_path, ["O7"], FigureOptions("small"))
    page = (tmp_path / "octopia.md").read_text()
    assert written.count == 1 and "octopia.md" in written.index_text
    row = "| Fig. 7(c): brokers processing, IDR / SNR | 6 / 7 | exact | 6 / 7 | reproduced |"
    assert row in page
    assert "| Fig. 7(b): brokers processing, IDR / SNR | 4 / 6 | exact | 5 / 6 | refuted:" in page
    assert "## Fig. 9" not in page and not list(tmp_path.glob("*.png"))
