"""The claims tables of the thesis' Chapter 4 and of LBDD §4 (pubsub_spec/claims.py): verdicts
are computed from the numbers, so a wrong number flips a verdict; the figure pages and the docs
carry the same tables; the thesis' full-scale figure page is committed and linked."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec import claims
from pubsub_spec.claims import (
    LBDD_CLAIMS,
    THESIS_CLAIMS,
    TOLERANCES,
    Cause,
    Refutation,
    SeedMedian,
    judge,
    lbdd_claims,
    markdown,
    thesis_claims,
)
from pubsub_spec.cmd_figures import page
from pubsub_spec.figures_lbdd import page as lbdd_page
from pubsub_spec.reference.lbdd.figures import build_lbdd_figures
from pubsub_spec.reference.thesis.figures import Figure

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def spec(sid: str) -> claims.ClaimSpec:
    return next(s for s in (*THESIS_CLAIMS, *LBDD_CLAIMS) if s.id == sid)


def test_tolerances_are_strict_at_their_edges() -> None:
    mean, share, below = TOLERANCES["mean"], TOLERANCES["share"], TOLERANCES["below"]
    assert mean.holds(364.0, 331.0) and not mean.holds(365.0, 331.0)  # ±10 %
    assert mean.holds(298.0, 331.0) and not mean.holds(297.0, 331.0)
    assert share.holds(0.75, 0.70) and not share.holds(0.76, 0.70)  # ±5 points
    assert below.holds(0.70, 0.70) and not below.holds(0.71, 0.70)
    assert TOLERANCES["all"].holds(1.0, 1.0) and not TOLERANCES["all"].holds(0.99, 1.0)
    assert TOLERANCES["rises"].holds(0.1, 0.0) and not TOLERANCES["rises"].holds(0.0, 0.0)
    assert TOLERANCES["range"].holds(-5, -20, 0) and not TOLERANCES["range"].holds(1, -20, 0)


def test_a_verdict_flips_with_our_number() -> None:
    t1 = spec("T1")  # 331 ms, ±10 %; the G4 experiment measured 359 ms
    assert judge(t1, 340.0, "run").outcome == "reproduced"
    explained = judge(t1, 661.0, "run")
    assert explained.outcome == "explained" and "359" in explained.verdict
    assert "--only probelevel" in explained.experiment  # the cause's command is in the row
    # the same row with the experiment's number outside the tolerance: not explained
    missed = judge(replace(t1, cause=Cause("x", 400.0, "cmd")), 661.0, "run")
    assert missed.outcome == "open" and "still outside" in missed.verdict


def test_a_reduction_needs_something_to_reduce() -> None:
    # the cut-off leaves at most half of the nodes above 6k; judged on one run (no D-SEEDS)
    t20 = replace(spec("T20"), seeds=None)
    fig = _fig("4.7", {"share_over_6k_no_cutoff": 0.10, "share_over_6k_cutoff": 0.02})
    assert judge(t20, t20.ours({"4.7": fig}), "run").outcome == "reproduced"
    fig.ours["share_over_6k_cutoff"] = 0.06
    assert judge(t20, t20.ours({"4.7": fig}), "run").outcome == "open"
    fig.ours.update(share_over_6k_no_cutoff=0.0, share_over_6k_cutoff=0.0)
    assert judge(t20, t20.ours({"4.7": fig}), "run").outcome == "open"


def test_d_seeds_the_median_decides_the_verdict() -> None:
    # T10: 70 % within ±5 points; the median over the seeds decides, not the one run's value
    t10 = replace(spec("T10"), seeds=None)
    inside = replace(t10, seeds=SeedMedian(30, 0.745, 0.73, 0.76, 18, "cmd30"))
    outside = replace(t10, seeds=SeedMedian(30, 0.755, 0.74, 0.77, 9, "cmd30"))
    far = replace(t10, seeds=SeedMedian(30, 0.80, 0.78, 0.82, 0, "cmd30"))
    assert judge(inside, 0.80, "run").outcome == "reproduced"  # the one run outside, the median in
    got = judge(outside, 0.74, "run")  # the one run inside, the median out
    assert got.outcome == "refuted" and "75.5%" in got.verdict
    assert "9 of 30 inside" in got.verdict and "`cmd30`" in got.experiment
    # the range 74-77 % excludes the paper's 70 %: no seed reaches it; 78-82 % neither
    assert "no seed reaches" in got.verdict
    assert "no seed reaches" in judge(far, 0.80, "run").verdict
    reach = replace(t10, seeds=SeedMedian(30, 0.755, 0.69, 0.77, 9, "cmd30"))
    assert "as a typical value" in judge(reach, 0.74, "run").verdict
    assert "no seed reaches" not in judge(reach, 0.74, "run").verdict
    # a range claim (T20: 0 to 0.5): a median at 0.50 is inside, at 0.51 outside
    t20 = replace(spec("T20"), seeds=None)
    edge = SeedMedian(30, 0.50, 0.44, 0.60, 15, "c")
    assert judge(replace(t20, seeds=edge), 0.6, "run").outcome == "reproduced"
    over = judge(replace(t20, seeds=replace(edge, median=0.51)), 0.4, "run")
    assert over.outcome == "refuted" and "as a typical value" in over.verdict


def test_a_refutation_needs_its_bound_outside_the_tolerance() -> None:
    t14 = spec("T14")  # multicast saves 29.1 %; G1 bounds it at the first stage's 21 %
    assert judge(t14, 29.0, "run").outcome == "reproduced"
    assert judge(t14, -1.0, "run").outcome == "refuted"
    reachable = replace(t14, refuted=Refutation("r", 28.0, "cmd"))
    assert judge(reachable, -1.0, "run").outcome == "open"
    # a refutation by the run itself (bound None) follows our number
    l9 = spec("L9")
    assert judge(l9, 1.0, "run").outcome == "reproduced"
    assert judge(l9, 0.8, "run").outcome == "refuted"


def test_uncertain_paper_values_are_marked_and_footnoted() -> None:
    rows = [judge(spec("T3"), 0.5, "run"), judge(spec("T1"), 340.0, "run")]
    text = markdown(rows)
    assert "| ≈ 90% (note T3) |" in text and "- T3: '1 s' is read" in text
    assert "| 331 |" in text  # a stated value carries no mark
    for key, tol in TOLERANCES.items():  # the tolerances are printed under every table
        assert tol.text in text, key


def _fig(fid: str, ours: dict[str, float], series: dict[str, Any] | None = None) -> Figure:
    return Figure(fid, "t", "dist", "x", "y", series or {"ours": [(1.0, 1.0)]}, ours, {})


def test_the_thesis_page_carries_the_table_computed_from_its_figures() -> None:
    good = _fig("4.1", {"mean_ms": 331.0, "frac_le_600ms": 0.70, "frac_le_1000ms": 0.90})
    bad = _fig("4.1", {"mean_ms": 900.0, "frac_le_600ms": 0.70, "frac_le_1000ms": 0.90})
    text = page([good], {}, "small", 1.0)
    assert "## Claims, one by one" in text
    row = next(line for line in text.splitlines() if line.startswith("| T1 |"))
    assert row.endswith("| reproduced | `pubsub-spec figures --scale small` |")
    assert "| T4 |" not in text  # only the figures drawn are judged
    worse = next(line for line in page([bad], {}, "small", 1.0).splitlines() if "| T1 |" in line)
    assert "| explained: " in worse


def test_the_lbdd_page_carries_the_table_and_a_wrong_tree_flips_it() -> None:
    figs = build_lbdd_figures(3)
    text = lbdd_page(figs, "small")
    assert "## Claims, one by one" in text
    rows = {c.id: c for c in lbdd_claims(figs, "small")}
    assert set(rows) == {s.id for s in LBDD_CLAIMS}
    assert rows["L1"].outcome == "reproduced"  # the calibration point
    assert rows["L5"].outcome == "reproduced" and rows["L10"].outcome == "reproduced"
    # one tree that sends a copy too many is no longer "exactly n copies"
    lt1 = next(f for f in figs if f.id == "LT1")
    ours = dict(lt1.ours) | {"share of trees with n copies": 14 / 15}
    broken = [replace(lt1, ours=ours) if f.id == "LT1" else f for f in figs]
    assert {c.id: c for c in lbdd_claims(broken, "small")}["L10"].outcome == "open"


def _claims_table(text: str) -> str:
    """The claims table of a page or doc: from its header row to its tolerances line."""
    m = re.search(r"^\| # \| claim \|.*?^Tolerances, stated before the runs[^\n]*", text,
                  re.M | re.S)  # fmt: skip
    assert m, "no claims table"
    return m.group(0)


def test_the_docs_tables_are_the_generated_ones() -> None:
    full = (DOCS / "figures" / "full" / "index.md").read_text()
    assert _claims_table((DOCS / "thesis.md").read_text()) == _claims_table(full)
    lbdd = (DOCS / "figures" / "lbdd.md").read_text()
    assert _claims_table((DOCS / "lbdd.md").read_text()) == _claims_table(lbdd)


def test_the_full_scale_page_is_committed_and_linked() -> None:
    full = DOCS / "figures" / "full"
    text = (full / "index.md").read_text()
    assert "(scale `full`)" in text and re.search(r"Total time: \d+ s", text)
    assert "| thesis | 1000 | 5000 | 10000 |" in text  # Table 4.1
    for n in (1740, 3000, 4000, 5000):
        assert f"| sweep-{n} | {n} |" in text
    assert "DISAGREE" not in text
    for png in re.findall(r"\]\((fig_[^)]+\.png)\)", text):
        assert (full / png).stat().st_size > 10_000
    assert "full/index.md" in (DOCS / "figures" / "index.md").read_text()
    assert "figures/full/index.md" in (DOCS / "thesis.md").read_text()


@pytest.mark.parametrize("sid", [s.id for s in THESIS_CLAIMS])
def test_every_thesis_row_reads_its_figure(sid: str) -> None:
    """Each row's getter reads a value its figure has (a renamed key fails here, not later)."""
    s = spec(sid)
    keys = {"4.1", "4.2", "4.3", "4.4", "4.5", "4.6", "4.7", "4.8", "4.9", "4.10", "T4.5"}
    assert s.figure in keys and s.tolerance in TOLERANCES
    assert s.cause is None or s.cause.command.startswith("python -m benchmarks.")


def test_thesis_claims_on_no_figures_is_empty() -> None:
    assert thesis_claims([], "small") == []


def test_the_lbdd_bounds_refute_what_they_claim(capsys: pytest.CaptureFixture[str]) -> None:
    """Rows L4, L6-L8 rest on `lbdd_bounds`: the per-connection rate that saturating from 6
    subscribers allows is below what LBDD's 24 Mbit/s needs, and an upload-only sender gives
    3 subscribers more than 24 Mbit/s + 10 %."""
    b = claims.lbdd_bounds()
    assert 96 < b["publisher upload (Mbit/s; 11 x 8 GB in 7810 s)"] < 97
    assert (
        b["per-connection r, highest (upload / 5)"]
        < b["per-connection r LBDD needs (24 Mbit/s - 10 %)"]
    )
    assert (
        b["LBDD rate at 3 subscribers, upload only, lowest"]
        > b["LBDD rate within 24 Mbit/s +-10 %, highest"]
    )
    for sid in ("L4", "L6", "L7", "L8"):
        s = spec(sid)
        assert s.refuted is not None and s.refuted.command == claims.BOUNDS
    assert claims.main(["lbdd-bounds"]) == 0
    assert "16.13" in capsys.readouterr().out
    assert claims.main(["nonsense"]) == 2


# -- the experiments' numbers come from their record (claims_experiments.json) -----------------

TYPED_IN = ("Cause", "Refutation", "SeedMedian")


def typed_numbers(source: str) -> list[str]:
    """The arguments of Cause(...), Refutation(...) and SeedMedian(...) in `source` that are a
    number typed by hand: no name and no call in them (so not read from the record), not text
    and not None."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") in TYPED_IN):
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            parts = list(ast.walk(arg))
            if any(isinstance(p, (ast.Name, ast.Call, ast.JoinedStr)) for p in parts):
                continue
            if isinstance(arg, ast.Constant) and (arg.value is None or isinstance(arg.value, str)):
                continue
            out.append(f"line {node.lineno}: {node.func.id}(... {ast.unparse(arg)} ...)")  # type: ignore[attr-defined]
    return out


def test_no_experiment_number_is_typed_by_hand() -> None:
    source = Path(claims.__file__).read_text()
    assert typed_numbers(source) == []
    # the check sees a typed number, and a sum of typed numbers
    planted = 'X = Cause("PNS", 359.0, "cmd")\nY = Refutation("r", 19 / 20, "c")\n'
    assert len(typed_numbers(planted)) == 2
    assert typed_numbers('Z = Cause("PNS", _gaps("latency", "k"), GAPS)\n') == []


def _bench_experiments(command: str) -> list[str]:
    """The record's keys behind a row's command: one per experiment of its --only list."""
    head, _, tail = command.partition(" --only ")
    exps, _, rest = tail.partition(" ")
    return [f"{head} --only {e}" + (f" {rest}" if rest else "") for e in exps.split(",")]


def test_every_experiment_of_a_thesis_row_is_recorded() -> None:
    record = claims.experiments_record()
    used = set()
    for s in THESIS_CLAIMS:
        for cmd in (s.cause and s.cause.command, s.refuted and s.refuted.command,
                    s.seeds and s.seeds.command):  # fmt: skip
            if cmd and cmd.startswith("python -m benchmarks.bench_thesis_gaps"):
                for key in _bench_experiments(cmd):
                    assert key in record, (s.id, key)
                    used.add(key)
    for key, entry in record.items():  # each entry is what its command measures, and is used
        assert key in used, key
        assert f"--only {entry['experiment']}" in key and entry["values"], key
    # an experiment not run yet reads as NaN and leaves its row open; a misspelt value fails
    missing = claims.recorded("python -m benchmarks.bench_thesis_gaps --only nothing", "x")
    assert math.isnan(missing)
    t1 = replace(spec("T1"), cause=Cause("x", missing, "cmd"))
    row = judge(t1, 661.0, "run")
    assert row.outcome == "open" and "not recorded" in row.verdict and "`cmd`" in row.experiment
    with pytest.raises(KeyError, match="recorded no value"):
        claims.recorded(f"{claims.GAPS} firststage", "no such value")


def test_the_cheapest_experiment_reruns_to_its_recorded_values(tmp_path: Path) -> None:
    """`firststage` (two seeded runs of 1000 × 5 × 500 on the fast engine, about 5 s of CPU)
    gives exactly the values committed in the record."""
    from benchmarks import bench_thesis_gaps

    command = f"{claims.GAPS} firststage"
    out = tmp_path / "record.json"
    argv = [*command.split()[3:], "--record", str(out)]
    with contextlib.redirect_stdout(io.StringIO()):
        assert bench_thesis_gaps.main(argv) == 0
    assert json.loads(out.read_text()) == {command: claims.experiments_record()[command]}


@pytest.mark.parametrize("damage", ["missing folder", "damaged record"])
def test_a_record_that_cannot_be_written_is_refused_before_the_runs(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """exit 2 naming --record, before any experiment runs (not after an hour of them)."""
    from benchmarks import bench_thesis_gaps

    out = tmp_path / "no" / "record.json"
    if damage == "damaged record":
        out = tmp_path / "record.json"
        out.write_text("{not json")
    assert bench_thesis_gaps.main(["--only", "firststage", "--record", str(out)]) == 2
    captured = capsys.readouterr()
    assert "--record" in captured.err and "thesis workload" not in captured.out


def _csv_series(name: str, series: str) -> list[float]:
    rows = (DOCS / "figures" / "full" / name).read_text().splitlines()[1:]
    return [float(r.split(",")[2]) for r in rows if r.split(",")[0] == series]


def test_the_full_sweeps_numbers_in_the_sentences_are_the_committed_runs() -> None:
    """The few numbers the rows' sentences take from the full page (not from an experiment of
    the record) are the committed full run's: T13's lowest placement, T23's growth, T24's
    maxima and T25's fall over the 1000-5000-node sweep."""
    full = (DOCS / "figures" / "full" / "index.md").read_text()
    ours = {m[0]: m[1] for m in re.findall(r"^\| (T\d+) \| [^|]+ \| [^|]+ \| [^|]+ \| ([^|]+) \|",
                                            full, re.M)}  # fmt: skip
    text = {s.id: (s.refuted.reason if s.refuted else "") + (s.cause.label if s.cause else "")
            for s in THESIS_CLAIMS}  # fmt: skip
    assert f"gives {ours['T13'].strip()} on the full page" in text["T13"]
    assert f"{ours['T23'].strip()} % in the full sweep" in text["T23"]
    maxima = _csv_series("fig_4_9.csv", "maximum")
    assert f"{min(maxima):,.0f}–{max(maxima):,.0f} ms over the full sweep" in text["T24"]
    mean = _csv_series("fig_4_10.csv", "average")
    fall = f"{100 * (mean[-1] / mean[0] - 1):.0f}".replace("-", "−")
    assert f"the full sweep {fall} %" in text["T25"]
