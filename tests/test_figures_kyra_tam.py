"""Kyra's and Tam's figure writers (pubsub_spec/figures_kyra.py, pubsub_spec/figures_tam.py,
declared in their contracts): they write the figures and pages they say, with a claims table in
the common form whose every row has a verdict; `pubsub-spec figures --only` selects among their
ids; and each verdict follows the measures (a wrong measured value flips it). The experiments
are replaced by synthetic measures, so no simulation runs here (the runs themselves: the
benchmarks, and tests/test_kyra_bench_claims.py for Kyra's verdict rules)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import pytest

from pubsub_spec import cmd_figures, figures_kyra, figures_tam
from pubsub_spec.cmd_figures import figure_sets
from pubsub_spec.figures_kyra import Row, Runs
from pubsub_spec.figures_tam import Measured
from pubsub_spec.properties.contract import FigureOptions

SIENA = Row(
    "siena", 1000.0, 1000, 3000.0, 120.0, 16000.0, 80.0, 1.0, 280.0, 500.0, 3.2, 1.6, True, 1.0,
    sub_msgs=200_000, sub_bytes=30_000_000, waste=0.7,
)  # fmt: skip
KYRA = replace(
    SIENA, system="kyra", records_mean=600.0, match_ops=1400.0, msgs=80.0, bytes=11000.0,
    latency_mean=270.0, load_recv=1.5, sub_msgs=100_000, sub_bytes=20_000_000,
)  # fmt: skip


def kyra_runs(kyra: Row = KYRA) -> Runs:
    group = replace(SIENA, system="mcgroups", msgs=200.0, memberships=3.0)
    runs: Runs = {}
    for wl in figures_kyra.BASE_RUNS:
        runs[wl] = {"kyra": kyra, "siena": SIENA, "mcgroups": group}
        runs[f"E-cliques {wl}"] = {"kyra": kyra, "siena": SIENA}
        runs[f"E-events {wl}"] = {"kyra": kyra}
    runs["E-narrow"] = {"kyra": kyra, "siena": SIENA}
    for kind, w in (("uniform", 0.9), ("skewed", 0.6)):
        runs[f"C5b narrow-{kind}"] = {"mcgroups": replace(group, waste=w)}
    return runs


def tam_measured(**changes: object) -> Measured:
    """Measures that meet every criterion of bench_tam_paper's docstring."""
    m = Measured(
        nodes=200, seed=1, ns=(1000, 2000, 4000),
        curves={"100%": [10_000, 21_000, 44_000], "50%": [11_000, 24_000, 53_000],
                "33%": [12_000, 27_000, 62_000], "25%": [13_000, 31_000, 72_000]},
        hits={"100%": 1.0, "50%": 0.505, "33%": 0.34, "25%": 0.251},
        expected={"100%": 1.0, "50%": 0.5, "33%": 1 / 3, "25%": 0.25},
        k_table2=12_000, qs=(1440, 2880, 5760), q_msgs=[30_000, 105_000, 370_000], k_small=144,
        n_fixed=2000, sizes=(100, 200, 400), n_msgs=[9000, 10_000, 11_000], n_r=5000,
        r_msgs=[20_000, 50_000, 140_000], digests=[1.0, 3.4, 11.3],
    )  # fmt: skip
    return replace(m, **changes)  # type: ignore[arg-type]


VERDICTS = ("reproduced", "explained", "refuted", "not measured")


def test_declared_with_unique_ids() -> None:
    sets = {f.writer: f for f in figure_sets() if f.writer}
    kyra = sets["pubsub_spec.figures_kyra:write_figures"]
    tam = sets["pubsub_spec.figures_tam:write_figures"]
    assert kyra.ids == figures_kyra.FIGURE_IDS == ("C1", "C2", "C3", "C4", "C5")
    assert tam.ids == figures_tam.FIGURE_IDS == ("H", "L", "S", "Q", "N", "R1", "R2")
    ids = [i for f in figure_sets() for i in f.ids]
    assert len(ids) == len(set(ids))


def test_kyra_claims_table_common_form() -> None:
    rows = figures_kyra.claims_table(kyra_runs(), "small")
    assert [r.cid for r in rows] == [*figures_kyra.SECTIONS]
    for r in rows:
        assert r.section.startswith(("§", "Abstract")) and r.paper and r.tolerance
        assert r.verdict.startswith(VERDICTS), r
        assert r.command == "python -m benchmarks.bench_kyra --quick --no-clustered"
    lines = figures_kyra.claims_lines(rows)
    assert lines[0] == "| # | claim | where | paper | ours | tolerance | verdict | experiment |"
    assert all(" † |" in line for line in lines[2:-4]) and lines[-1].startswith("† UNCERTAIN")
    assert lines[-3].startswith("Verdicts: ") and "reproduced" in lines[-3]


def test_kyra_verdict_follows_the_measure() -> None:
    """C2a's storage: 0.60 of Siena's is reproduced; a wrong measure (0.80) is not."""
    verdict = {r.cid: r.verdict for r in figures_kyra.claims_table(kyra_runs(), "full")}
    assert verdict["C2a"] == "reproduced" and verdict["C1"] == "reproduced"
    worse = replace(KYRA, records_mean=800.0, bytes=16000.0 * 1.2)
    verdict = {r.cid: r.verdict for r in figures_kyra.claims_table(kyra_runs(worse), "full")}
    assert verdict["C2a"].startswith("refuted") and verdict["C1"].startswith("refuted")
    assert "bytes" in verdict["C1"] and "latency" not in verdict["C1"]  # names what exceeds


def test_tam_verdict_follows_the_measure() -> None:
    ok = {r.cid: r.verdict for r in figures_tam.claims_table(tam_measured(), "small")}
    assert ok == dict.fromkeys(figures_tam.FIGURE_IDS, "reproduced")
    off = tam_measured(
        hits={"100%": 1.0, "50%": 0.53, "33%": 0.34, "25%": 0.251},  # 3 pp off
        q_msgs=[30_000, 70_000, 160_000],  # slope 1.2: not quadratic
        digests=[1.0, 3.6, 11.3],  # 8 % above V/3
    )
    bad = {r.cid: r.verdict for r in figures_tam.claims_table(off, "small")}
    assert (bad["H"], bad["Q"], bad["R1"]) == ("refuted",) * 3
    assert bad["N"] == bad["R2"] == "reproduced"


def printed_kyra_runs(size: object, clustered: bool = True) -> Runs:
    """The synthetic runs, printed as the experiments print them (with the seconds column)."""
    runs = kyra_runs()
    figures_kyra.print_table(list(runs["zipf/uniform"].values()))
    return runs


def test_writers_write_what_they_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures_kyra, "experiments", printed_kyra_runs)
    monkeypatch.setattr(figures_tam, "measure_all", lambda sizes, seed: tam_measured())
    k = figures_kyra.write_figures(tmp_path, ["C1", "C3"], FigureOptions("small"))
    t = figures_tam.write_figures(tmp_path, list(figures_tam.FIGURE_IDS), FigureOptions("small"))
    assert (k.count, t.count) == (2, 7) and k.disagree == ()
    assert "[kyra.md](kyra.md)" in k.index_text and "[tam.md](tam.md)" in t.index_text
    names = sorted(p.name for p in tmp_path.iterdir())
    tam_files = [f"tam_{i.lower()}.{ext}" for i in figures_tam.FIGURE_IDS for ext in ("csv", "png")]
    assert names == sorted(["kyra.md", "tam.md", "kyra_c1.csv", "kyra_c1.png", "kyra_c3.csv",
                            "kyra_c3.png", *tam_files])  # fmt: skip
    kyra_page = (tmp_path / "kyra.md").read_text()
    assert "![Kyra C1](kyra_c1.png)" in kyra_page and "kyra_c2" not in kyra_page
    assert kyra_page.count("| reproduced |") + kyra_page.count("| explained") >= 9
    # the benchmark's tables without the wall seconds: the same runs write the same page
    assert "| kyra | 600.0 (1,000) |" in kyra_page and "| oracle |\n" in kyra_page
    assert "| s |" not in kyra_page and "| agree | 1.0 |" not in kyra_page
    tam_page = (tmp_path / "tam.md").read_text()
    for cid in figures_tam.FIGURE_IDS:
        assert f"| {cid} | " in tam_page and f"![Tam {cid}](tam_{cid.lower()}.png)" in tam_page
    assert "≈ 100 / 50 / 33 / 25 % †" in tam_page and "† UNCERTAIN" in tam_page
    # the CSVs carry ours beside the paper's uncertain values
    h = (tmp_path / "tam_h.csv").read_text().splitlines()
    assert h[0] == "series,x,y" and "ours,0.5,0.505" in h
    assert "paper ≈ (digits lost; T16),0.5,0.5" in h
    # a run that disagrees with the oracle is reported
    monkeypatch.setattr(
        figures_kyra, "experiments",
        lambda size, clustered=True: {**kyra_runs(), "E-narrow": {
            "kyra": replace(KYRA, agree=False), "siena": SIENA}},
    )  # fmt: skip
    bad = figures_kyra.write_figures(tmp_path, ["C2"], FigureOptions("small"))
    assert bad.disagree == ("kyra E-narrow/kyra",)


def test_only_selects_among_the_ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures_kyra, "experiments", lambda size, clustered=True: kyra_runs())
    monkeypatch.setattr(figures_tam, "measure_all", lambda sizes, seed: tam_measured())
    args = argparse.Namespace(
        only="C2,R1", out=str(tmp_path), scale="small", no_check=True, engine="fast", jobs=1
    )
    assert cmd_figures.run(args) == 0
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["kyra_c2.png", "tam_r1.png"]
    index = (tmp_path / "index.md").read_text()
    assert "[kyra.md](kyra.md) (1)" in index and "[tam.md](tam.md) (1)" in index
    assert "lbdd" not in index and "octopia" not in index
    args.only = "C2,nope"
    assert cmd_figures.run(args) == 2
