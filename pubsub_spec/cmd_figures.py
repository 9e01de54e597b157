"""`pubsub-spec figures`: every paper's figures that a family's contract declares with a writer
(properties/<family>/contract.py, `FigureSet`), family by family. Thesis Chapter 4 figure by
figure (Figs. 4.1–4.10, Table 4.5), each as a PNG and a CSV of its series, with the thesis'
stated values beside ours, and one Markdown page (`index.md`) that puts them side by side with a
sentence per figure (`write_thesis_figures`, here); likewise the LBDD paper's Tab. 1 and
Figs. 1–4 (ids LT1, L1–L4, page `lbdd.md`: pubsub_spec/figures_lbdd.py).

The thesis' runs and series are `reference/thesis/figures.py`; this module only draws and writes.
`--scale full` is the thesis' own size (Table 4.1, §4.3.3); `--scale small` keeps the shapes at a
tenth of the nodes and finishes in about a minute (CI runs it).
"""

from __future__ import annotations

import argparse
import csv
import gc
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pubsub_spec.argtypes import int_range
from pubsub_spec.conformance.lifeline import WorkerPool
from pubsub_spec.outputs import OutputProblem, check_dir
from pubsub_spec.progress import ProgressBar
from pubsub_spec.properties.contract import (
    CROSS_FAMILY_FIGURES,
    FigureOptions,
    FigureSet,
    FiguresWritten,
    contracts,
    resolve,
)
from pubsub_spec.reference.sim.run import Progress
from pubsub_spec.reference.thesis.figures import (
    FIGURE_IDS,
    SCALES,
    Figure,
    RunStats,
    Series,
    StreamingSystem,
    as_rows,
    build_figures,
)
from pubsub_spec.reference.thesis.substrate_fast import FastStreamingSystem


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="out/figures", help="output directory (default out/figures)")
    p.add_argument("--scale", choices=sorted(SCALES), default="full")
    p.add_argument(
        "--only",
        default=None,
        help="comma-separated figure ids (default: all): the thesis' "
        f"{', '.join(FIGURE_IDS)} and the other papers' (declared by each family's contract, "
        "properties/<family>/contract.py)",
    )
    p.add_argument("--no-check", action="store_true", help="skip the (streamed) oracle comparison")
    p.add_argument(
        "--engine",
        choices=("fast", "reference"),
        default="fast",
        help="the simulator of the thesis runs: fast (default; the fast substrate of "
        "reference/thesis/substrate_fast.py, the reference's run bit for bit) or reference",
    )
    p.add_argument(
        "--jobs",
        type=int_range(1, 64),
        default=1,
        help="worker processes for the independent runs (2 on a 2-core machine: about half "
        "the time; the figures are the same)",
    )


def _fmt(v: float) -> str:
    if abs(v) < 1 and v != 0:
        return f"{v:.2f}"
    return f"{v:,.1f}" if abs(v) < 100 else f"{v:,.0f}"


def _cdf_masses(pts: Series) -> tuple[list[float], list[float]]:
    """The x values of a CDF series and the share of the population at each (the CDF's
    steps): a histogram weighted by them counts what the CDF counts (deliveries, nodes), not
    the distinct x values (a latency CDF built from 1-ms bins has one point per bin)."""
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return xs, [y - prev for prev, y in zip([0.0, *ys[:-1]], ys, strict=True)]


def _thesis_value(fig: Figure, key: str) -> str:
    """The thesis' value as printed: "≈" before one read off an axis or from damaged text."""
    return ("≈ " if key in fig.uncertain else "") + _fmt(fig.thesis[key])


def _text_box(fig: Figure) -> str:
    lines = ["ours: " + ", ".join(f"{k} {_fmt(v)}" for k, v in fig.ours.items())]
    if fig.thesis:
        lines.append("thesis: " + ", ".join(f"{k} {_thesis_value(fig, k)}" for k in fig.thesis))
    if fig.uncertain:
        lines.append("≈ (hollow marks): " + "; ".join(sorted(set(fig.uncertain.values()))))
    return "\n".join(_wrap(line, 100) for line in lines)


def _wrap(text: str, width: int) -> str:
    out, cur = [], ""
    for word in text.split(" "):
        if len(cur) + len(word) + 1 > width and cur:
            out.append(cur)
            cur = "    " + word
        else:
            cur = f"{cur} {word}" if cur else word
    out.append(cur)
    return "\n".join(out)


def draw(fig: Figure, path: Path, sweep_labels: list[str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(8, 5.2))
    colours = ["tab:blue", "tab:orange", "tab:green"]
    if fig.kind == "dist":
        lo = min(p[0] for pts in fig.series.values() for p in pts)
        hi = max(p[0] for pts in fig.series.values() for p in pts)
        bins = [lo + (hi - lo) * i / 40 for i in range(41)] if hi > lo else 40
        for (name, pts), c in zip(fig.series.items(), colours, strict=False):
            xs, weights = _cdf_masses(pts)
            ax.hist(xs, bins=bins, weights=weights, alpha=0.35, color=c, label=f"{name} (share)")
        ax.set_ylabel("share per bin")
        ax2 = ax.twinx()
        for (name, pts), c in zip(fig.series.items(), colours, strict=False):
            ax2.plot([p[0] for p in pts], [p[1] for p in pts], color=c, label=f"{name} (CDF)")
        ax2.set_ylim(0, 1.02)
        ax2.set_ylabel(fig.ylabel)
        _thesis_marks(fig, ax2)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax2.legend(h1 + h2, l1 + l2, loc="center right", fontsize=8)
    elif fig.kind == "rank":
        for (name, pts), c in zip(fig.series.items(), colours, strict=False):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=c, label=name)
        ax.set_ylabel(fig.ylabel)
        ax.legend(fontsize=8)
    else:  # sweep / table: by network size index, ours (thesis size) as tick labels
        for (name, pts), c in zip(fig.series.items(), colours, strict=False):
            if name == "thesis":
                continue
            ax.plot(
                range(len(pts)),
                [p[1] for p in pts],
                "o-",
                color=c,
                label="ours" if name == "ours" else f"ours: {name}",
            )
        if fig.id == "4.9":
            n = len(sweep_labels)
            ax.plot([0, n - 1], [330, 430], "x--", color="tab:red", label="thesis: average")
            ax.fill_between(
                [0, n - 1],
                1600,
                1800,
                color="tab:red",
                alpha=0.12,
                label="thesis: maximum 1.6–1.8 s",
            )
        if "thesis" in fig.series:
            pts = fig.series["thesis"]
            ax.plot(range(len(pts)), [p[1] for p in pts], "x--", color="tab:red", label="thesis")
            ax.set_ylim(0, max(p[1] for s in fig.series.values() for p in s) * 1.3)
        ax.set_xticks(range(len(sweep_labels)), sweep_labels, fontsize=8)
        ax.set_ylabel(fig.ylabel)
        ax.legend(fontsize=8)
    ax.set_xlabel(fig.xlabel)
    ax.set_title(
        f"Fig. {fig.id}: {fig.title}" if fig.id[0] != "T" else f"Table 4.5: {fig.title}",
        fontsize=11,
    )
    box = _text_box(fig)
    f.text(0.01, 0.01, box, fontsize=6.5, family="monospace", va="bottom")
    ticks = 0.05 if fig.kind in ("sweep", "table") else 0.0  # two-line size labels
    f.subplots_adjust(
        bottom=0.1 + ticks + 0.024 * (box.count("\n") + 1),
        right=0.88 if fig.kind == "dist" else 0.95,
    )
    f.savefig(path, dpi=90)
    plt.close(f)


def _thesis_marks(fig: Figure, ax: Any) -> None:
    """The thesis' stated fractions (x within y) as red crosses, where the units are ours too
    (latencies in ms)."""
    if fig.id not in ("4.1", "4.3"):
        return
    for key, frac in fig.thesis.items():
        if key.startswith("frac_le_") and key.endswith("ms"):
            x = float(key[len("frac_le_") : -2])
            if key in fig.uncertain:  # hollow: the value is uncertain (its footnote says why)
                ax.plot([x], [frac], "o", mfc="none", color="tab:red", markersize=10, mew=2)
            else:
                ax.plot([x], [frac], "x", color="tab:red", markersize=10, mew=2)
    ax.axvline(fig.thesis["mean_ms"], color="tab:red", ls="--", lw=1, label="thesis mean")
    ax.axvline(fig.ours["mean_ms"], color="tab:blue", ls=":", lw=1, label="our mean")
    ax.plot([], [], "x", color="tab:red", label="thesis: stated fraction")
    if any(k.startswith("frac_le_") for k in fig.uncertain):
        ax.plot([], [], "o", mfc="none", color="tab:red", label="thesis: uncertain (≈)")


def write_csv(fig: Figure, path: Path) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["series", "x", "y"])
        w.writeheader()
        for row in as_rows(fig):
            w.writerow(row)


def page(
    figs: list[Figure], runs: dict[str, RunStats], scale: str, secs: float, engine: str = "fast"
) -> str:
    how = (
        "on the fast engine (reference/thesis/substrate_fast.py: the reference's runs bit for "
        "bit, checked by tests/test_thesis_fast.py)"
        if engine == "fast"
        else "on the reference engine (reference/thesis/system.py on the plain substrate of "
        "reference/thesis/substrate.py)"
    )
    out = [
        f"# Thesis Chapter 4, figure by figure (scale `{scale}`)",
        "",
        "Generated by `pubsub-spec figures --scale " + scale + "` (reference/thesis/figures.py, "
        f"pubsub_spec/cmd_figures.py), {how}. Ours on the left of each table, the thesis' values "
        "on the right; the causes of the differences are in docs/thesis.md, "
        '"Chapter 4 figures". Bytes follow the compact byte model (D-MSG), not Java '
        "serialization, so compare ratios and shapes, not absolute bytes.",
        "",
        "| run | nodes | subs | events | deliveries | oracle |",
        "|---|---|---|---|---|---|",
    ]
    for r in runs.values():
        verdict = (
            "not checked"
            if r.agree is None
            else ("agree" if r.agree else f"DISAGREE on {r.disagreeing_events}")
        )
        out.append(f"| {r.name} | {r.nodes} | {r.subs} | {r.events} | {r.deliveries} | {verdict} |")
    out += ["", f"Total time: {secs:.0f} s.", ""]
    if scale != "full":
        out += [
            "The thesis' own scale (Table 4.1, 1000 × 5 × 10,000, and the 1000–5000-node sweep "
            "of §4.3.3) is committed in the repository beside this page: "
            "[full/index.md](full/index.md) (`pubsub-spec figures --scale full --out "
            "docs/figures/full`). Kyra's and Tam et al.'s claims at their benchmarks' sizes are "
            "committed there too: [full/kyra.md](full/kyra.md) and [full/tam.md](full/tam.md) "
            "(`pubsub-spec figures --scale full --only C1,...,R2`: about 130 s of CPU).",
            "",
        ]
    if figs:
        # imported here, when the page is written: a long run judges with the table as it is
        # then (pubsub_spec/claims.py)
        from pubsub_spec.claims import markdown as claims_markdown
        from pubsub_spec.claims import thesis_claims

        out += [
            "## Claims, one by one",
            "",
            "Every quantitative or directional claim of Chapter 4 that these figures measure, "
            f"judged on this run (scale `{scale}`; the thesis' own is `full`). Absolute bytes "
            "are not rows: the thesis' are Java serialization's (§4.3.1), ours the compact byte "
            "model (D-MSG), so the rows compare their shapes (multiples of the mean, shares, "
            'ratios). The named experiments are described in docs/thesis.md, "The four '
            'results not reproduced, and why" (G1–G4).',
            "",
            claims_markdown(thesis_claims(figs, scale)),
            "",
        ]
    for fig in figs:
        name = f"fig_{fig.id.replace('.', '_')}"
        label = f"Fig. {fig.id}" if fig.id[0] != "T" else "Table 4.5"
        out += [f"## {label}: {fig.title}", "", f"![{label}]({name}.png)", "", fig.sentence, ""]
        keys = list(dict.fromkeys([*fig.ours, *fig.thesis]))
        out += ["| value | ours | thesis |", "|---|---|---|"]
        for k in keys:
            o = _fmt(fig.ours[k]) if k in fig.ours else ""
            t = _thesis_value(fig, k) if k in fig.thesis else ""
            out.append(f"| {k} | {o} | {t} |")
        out += [""]
        out += [f"≈ {k}: {why}." for k, why in fig.uncertain.items() if k in fig.thesis]
        out += ["", f"Series: [{name}.csv]({name}.csv)", ""]
    return "\n".join(out)


def write_thesis_figures(out: Path, only: Sequence[str], options: FigureOptions) -> FiguresWritten:
    """The thesis family's figure writer (properties/thesis/contract.py): the chosen figures of
    Chapter 4 as PNG and CSV, and their page, which opens the index."""
    start = time.monotonic()
    scale = SCALES[options.scale]

    def progress(name: str) -> Progress:
        return ProgressBar(f"figures {name}", min_total=200)

    figs, runs = (
        build_figures(
            scale,
            tuple(only),
            progress,
            check=options.check,
            jobs=options.jobs,
            system_class=FastStreamingSystem if options.engine == "fast" else StreamingSystem,
            pool=WorkerPool,  # its workers die with this process (conformance/lifeline.py)
        )
        if only
        else ([], {})
    )
    labels = [
        f"{n}\n(thesis {t})"
        for n, t in zip(scale.sweep_nodes, SCALES["full"].sweep_nodes, strict=False)
    ]
    for fig in figs:
        name = f"fig_{fig.id.replace('.', '_')}"
        draw(fig, out / f"{name}.png", labels)
        write_csv(fig, out / f"{name}.csv")
        print(f"{fig.id}: {fig.sentence}")
    text = page(figs, runs, options.scale, time.monotonic() - start, options.engine)
    bad = tuple(r.name for r in runs.values() if r.agree is False)
    return FiguresWritten(len(figs), text, bad)


def figure_sets() -> list[FigureSet]:
    """The figure sets `pubsub-spec figures` writes: every family's that has a writer
    (properties/contract.py), in the order of the families, the one heading the index first."""
    sets = [f for c in contracts() for f in c.figures if f.writer] + list(CROSS_FAMILY_FIGURES)
    return sorted(sets, key=lambda f: not f.heads_index)


def run(args: argparse.Namespace) -> int:
    sets = figure_sets()
    known = tuple(i for f in sets for i in f.ids)
    chosen = known if not args.only else tuple(args.only.split(","))
    unknown = [f for f in chosen if f not in known]
    if unknown:
        print(f"error: unknown figure ids {unknown}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    # a run allocates millions of small objects, few of them in cycles: rarer collections
    gc.set_threshold(100_000, 50, 100)  # save about a tenth of the time
    out = Path(args.out)
    try:  # before the work: a file at the name or a read-only folder is exit 2
        check_dir(out, "--out")
    except OutputProblem as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    start = time.monotonic()
    options = FigureOptions(args.scale, not args.no_check, args.engine, args.jobs)
    written: list[FiguresWritten] = []
    for fs in sets:
        mine = [i for i in fs.ids if i in chosen]
        if mine or fs.heads_index:  # its page heads the index, even without a figure
            writer = resolve(fs.writer)
            assert callable(writer), fs.writer
            written.append(writer(out, mine, options))
    secs = time.monotonic() - start
    (out / "index.md").write_text("".join(w.index_text for w in written) + "\n")
    bad = [name for w in written for name in w.disagree]
    print(f"wrote {sum(w.count for w in written)} figures and {out / 'index.md'} in {secs:.0f} s")
    if bad:
        print(f"oracle: DISAGREE in runs {', '.join(bad)}")
        return 1
    return 0
