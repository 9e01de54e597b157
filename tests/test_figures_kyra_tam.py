"""Kyra's and Tam's figure writers (pubsub_spec/figures_kyra.py, pubsub_spec/figures_tam.py,
declared in their contracts): they write the figures and pages they say, with a claims table in
the common form whose every row has a verdict; `pubsub-spec figures --only` selects among their
ids; and each verdict follows the measures (a wrong measured value flips it). The experiments
are replaced by synthetic measures, so no simulation runs here (the runs themselves: the
benchmarks, and tests/test_kyra_bench_claims.py for Kyra's verdict rules)."""

from __future__ import annotations

import argparse
import io
import re
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest

from pubsub_spec import cmd_figures, figures_kyra, figures_tam, figures_tam_shapes, octopia_eval
from pubsub_spec.cmd_figures import figure_sets
from pubsub_spec.figures_kyra import Row, Runs
from pubsub_spec.figures_tam import Measured
from pubsub_spec.figures_tam_shapes import QUICK_SHAPES, IntervalRow, PolicyRow, Rendezvous, Shapes
from pubsub_spec.figures_tam_shapes import Row as TamRow
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
    assert figures_tam.FIGURE_IDS == ("H", "L", "S", "Q", "N", "R1", "R2")
    shapes = ("messages", "hit-rate", "keys", "rendezvous", "routes")
    assert tam.ids == figures_tam.ALL_IDS == (*shapes, *figures_tam.FIGURE_IDS)
    assert not [f for f in figure_sets() if f.benchmark]  # every figure set is drawn
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
    monkeypatch.setattr(figures_tam, "measure_shapes", lambda sizes: tam_shapes())
    args = argparse.Namespace(
        only="C2,R1,hit-rate", out=str(tmp_path), scale="small", no_check=True, engine="fast",
        jobs=1,
    )  # fmt: skip
    assert cmd_figures.run(args) == 0
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["kyra_c2.png", "tam_hit_rate.png", "tam_r1.png"]
    index = (tmp_path / "index.md").read_text()
    assert "[kyra.md](kyra.md) (1)" in index and "[tam.md](tam.md) (2)" in index
    assert "lbdd" not in index and "octopia" not in index
    args.only = "C2,nope"
    assert cmd_figures.run(args) == 2


def tam_row(system: str, sub_msgs: int, subs: int = 100, event_msgs: int = 1000,
            hit: float | None = 0.3, agree: bool = True) -> TamRow:  # fmt: skip
    return TamRow(system, subs, 100, 100, sub_msgs, 100 * sub_msgs, event_msgs, 0, 1.0, 2.0, 10,
                  1.0, hit, 0, agree, 0.25)  # fmt: skip


def tam_shapes(**changes: object) -> Shapes:
    """Shapes that meet every criterion of figures_tam_shapes.SHAPE_TOLERANCE."""
    sh = Shapes(
        sizes=QUICK_SHAPES,
        side={b: [tam_row(b, 300)] for b in ("reference", "tam", "tam-basic")},
        by_subs=[(1.0, tam_row("tam", 350), tam_row("tam-basic", 430)),
                 (3.0, tam_row("tam", 860, 300), tam_row("tam-basic", 1280, 300))],
        by_nodes=[(25, tam_row("tam", 216), tam_row("tam-basic", 256)),
                  (100, tam_row("tam", 288), tam_row("tam-basic", 428))],
        policies=[PolicyRow("first", tam_row("tam", 280, event_msgs=7000), 100, 2.5),
                  PolicyRow("fewest-keys", tam_row("tam", 200, event_msgs=6500), 90, 2.0),
                  PolicyRow("all", tam_row("tam", 490, event_msgs=12000, hit=0.2), 200, 4.9)],
        intervals=[IntervalRow(4, tam_row("tam", 126, hit=0.17), 1.26, 3, 16),
                   IntervalRow(16, tam_row("tam", 288, hit=0.29), 2.56, 8, 64)],
        rendezvous=Rendezvous([55, 53, 45], [43, 20, 10, 5], {"tam-basic": [672, 300, *[70] * 98],
                                                              "tam": [1288, 900, *[220] * 98]}),
        routes=[(100, 1.69, 2), (1000, 2.46, 3)],
    )  # fmt: skip
    return replace(sh, **changes)  # type: ignore[arg-type]


def test_tam_shape_verdicts_follow_the_data() -> None:
    ok = {r.cid: r.verdict for r in figures_tam.shape_claims_table(tam_shapes(), "small")}
    assert ok == dict.fromkeys(figures_tam_shapes.SHAPE_IDS, "reproduced")
    sh = tam_shapes()
    worse = tam_shapes(
        # Scribe above the home route at 100 nodes; a route 0.6 hop longer than log16 N
        by_nodes=[sh.by_nodes[0], (100, tam_row("tam", 450), tam_row("tam-basic", 428))],
        routes=[(100, 1.66 + 0.6, 2), (1000, 2.46, 3)],
        # the busiest Scribe peer at 8x the mean, above the basic scheme's 6.7x
        rendezvous=replace(sh.rendezvous, per_peer={"tam-basic": [672, *[100] * 99],
                                                    "tam": [1600, *[200] * 99]}),
        policies=[*sh.policies[:2], replace(sh.policies[2], row=tam_row("tam", 1, agree=False))],
    )  # fmt: skip
    bad = {r.cid: r.verdict for r in figures_tam.shape_claims_table(worse, "small")}
    assert bad == {"messages": "refuted", "hit-rate": "refuted", "keys": "reproduced",
                   "rendezvous": "refuted", "routes": "refuted"}  # fmt: skip


def test_tam_shapes_written_on_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures_tam, "measure_shapes", lambda sizes: tam_shapes())
    monkeypatch.setattr(figures_tam, "measure_all", lambda sizes, seed: pytest.fail("not asked"))
    ids = list(figures_tam_shapes.SHAPE_IDS)
    w = figures_tam.write_figures(tmp_path, ids, FigureOptions("small"))
    assert w.count == 5
    stems = ["tam_messages", "tam_hit_rate", "tam_keys", "tam_rendezvous", "tam_routes"]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["tam.md", *(f"{s}.{e}" for s in stems for e in ("png", "csv"))])
    page = (tmp_path / "tam.md").read_text()
    for fid, stem in zip(ids, stems, strict=True):
        assert f"| {fid} | " in page and f"![Tam {fid}]({stem}.png)" in page
    assert "≈ log16 N (Pastry, b = 4) †" in page and "Verdicts: 5 reproduced." in page
    # the runs' tables without wall seconds (the rows carry 0.25 s each)
    assert "| tam | 3.0 | 300 |" in page and "| oracle |\n" in page and "0.2 |" not in page
    routes = (tmp_path / "tam_routes.csv").read_text().splitlines()
    assert "ours: mean hops,100,1.69" in routes and "paper ≈ log16 N,100,1.66096" in routes
    # the same runs write the same page
    first = page
    figures_tam.write_figures(tmp_path, ids, FigureOptions("small"))
    assert (tmp_path / "tam.md").read_text() == first


def test_octopia_page_leaves_out_wall_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two writes of the same runs give the same page: the end-to-end table (experiment 3, run
    for real on a tiny stock trace) is printed without the wall seconds, which a clock that
    moves on every reading would otherwise change."""
    clock = iter(range(10**6))
    monkeypatch.setattr(  # every run takes longer than the one before
        "pubsub_spec.octopia_eval.time.perf_counter", lambda: float(next(clock)) ** 2
    )
    burst = octopia_eval.BurstFigures(10, 1, "a", 100.0, 200.0, 0.9, 0.0, 0.0, True, q_host=5.0)
    sub = octopia_eval.SubFigures(10.0, 8.0, 9.0, 100, 70, 50.0, 60.0)

    def fake(seed: int, quick: bool, wall: bool = True) -> octopia_eval.Evaluation:
        octopia_eval.end_to_end(seed, octopia_eval.Stock(2, 6, 6), wall)
        per = {"octopia-idr": [replace(burst, mean_ms=80.0)], "octopia-snr": [burst]}
        return octopia_eval.Evaluation([(-0.9, 98.0, -0.6)], [], {"paper-500": sub},
                                       {"per": per}, {}, [])  # fmt: skip

    monkeypatch.setattr(octopia_eval, "evaluate", fake)
    pages = []
    for _ in range(2):
        octopia_eval.write_figures(tmp_path, ["O9", "O11", "OB"], FigureOptions("small"))
        pages.append((tmp_path / "octopia.md").read_text())
    assert pages[0] == pages[1]
    assert "| SRT / PRT per broker | oracle |\n" in pages[0] and "| s |" not in pages[0]
    # the benchmark's own printout keeps the column
    buf = io.StringIO()
    with redirect_stdout(buf):
        octopia_eval.end_to_end(1, octopia_eval.Stock(2, 6, 6))
    assert "| oracle | s |" in buf.getvalue()


DOCS = Path(__file__).resolve().parents[1] / "docs"


def _outcomes(page: str) -> dict[str, str]:
    """A committed page's claims table: id -> the verdict's first word."""
    rows = re.findall(r"^\| ([\w-]+) \| .*? \| (reproduced|explained|refuted|not measured)",
                      page, re.M)  # fmt: skip
    return dict(rows)


@pytest.mark.parametrize("paper", ["kyra", "tam"])
def test_full_scale_page_committed_linked_and_compared(paper: str) -> None:
    """`--scale full` of Kyra and Tam is committed beside the small page, linked from the
    figures index, the full index and docs/<paper>.md; every verdict that differs between the
    two scales is named in docs/<paper>.md's paragraph on the full page."""
    full = (DOCS / "figures" / "full" / f"{paper}.md").read_text()
    small = (DOCS / "figures" / f"{paper}.md").read_text()
    assert "(scale `full`)" in full and "(scale `small`)" in small
    assert "DISAGREE" not in full
    for png in re.findall(r"\]\(([\w]+\.png)\)", full):
        assert (DOCS / "figures" / "full" / png).stat().st_size > 10_000, png
    assert f"[full/{paper}.md](full/{paper}.md)" in (DOCS / "figures" / "index.md").read_text()
    assert f"[{paper}.md]({paper}.md)" in (DOCS / "figures" / "full" / "index.md").read_text()
    doc = (DOCS / f"{paper}.md").read_text()
    link = f"[figures/full/{paper}.md](figures/full/{paper}.md)"
    assert link in doc
    paragraph = next(p for p in doc.split("\n\n") if link in p)
    big, little = _outcomes(full), _outcomes(small)
    assert set(big) == set(little) and len(big) >= 9
    differ = [cid for cid in big if big[cid] != little[cid]]
    for cid in differ:
        assert re.search(rf"\b{cid}\b", paragraph), (cid, little[cid], big[cid])
    if not differ:
        assert "same verdict" in paragraph
