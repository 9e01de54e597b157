"""Claims tables of the thesis' Chapter 4 and of the LBDD paper's evaluation: every quantitative
or directional claim, where the paper makes it, the paper's value, ours, the tolerance stated
before the run, a verdict and the experiment's command.

A verdict is computed, never written by hand:
- *reproduced*: our value, from the run of `pubsub-spec figures`, is inside the tolerance;
- *explained*: it is not, but a named experiment (`Cause`: its label says what it removes, its
  value is what it measured, its command reproduces it) isolates the cause and gives a value
  inside the same tolerance;
- *refuted*: an experiment shows that the claim cannot hold as written (`Refutation`: the bound
  it measured and why the paper's value is out of its reach);
- *open*: none of these; the row says what is missing. No row is left open knowingly.

The tolerances are the table `TOLERANCES`, stated once here, printed under every claims table.
The rows are `THESIS_CLAIMS` (docs/thesis.md "Claims, one by one") and `LBDD_CLAIMS`
(docs/lbdd.md); `pubsub-spec figures` prints them on its pages (pubsub_spec/cmd_figures.py,
pubsub_spec/figures_lbdd.py), computed from the figures it has just drawn.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tolerance:
    """How far ours may lie from the paper's value and still reproduce it."""

    kind: str  # "rel", "abs", "min", "max", "above", "range"
    amount: float
    text: str

    def holds(self, ours: float, paper: float, paper_hi: float | None = None) -> bool:
        eps = 1e-9
        if self.kind == "rel":
            return abs(ours - paper) <= self.amount * abs(paper) + eps
        if self.kind == "abs":
            return abs(ours - paper) <= self.amount + eps
        if self.kind == "min":
            return ours >= paper - self.amount - eps
        if self.kind == "max":
            return ours <= paper + self.amount + eps
        if self.kind == "above":
            return ours > paper + eps
        if self.kind == "range":
            assert paper_hi is not None
            return paper - eps <= ours <= paper_hi + eps
        raise ValueError(f"unknown tolerance kind {self.kind!r}")


TOLERANCES: dict[str, Tolerance] = {
    "mean": Tolerance("rel", 0.10, "a stated mean or level: within ±10 % of it"),
    "approx": Tolerance(
        "rel", 0.20, "a value read off an axis or from damaged text (≈): within ±20 %"
    ),
    "share": Tolerance("abs", 0.05, "a stated share ('about 70 %'): within ±5 percentage points"),
    "all": Tolerance("min", 0.0, "'all', 'every': every one (ours >= the paper's 100 %)"),
    "nearly-all": Tolerance("min", 0.05, "'nearly all': at least 95 %"),
    "below": Tolerance("max", 0.0, "'under x', 'at most x': ours <= x"),
    "range": Tolerance(
        "range", 0.0, "a stated range ('slightly', 'almost the same'): ours inside it"
    ),
    "rises": Tolerance("above", 0.0, "a stated rise: ours above the bound"),
    "count": Tolerance("abs", 0.0, "a stated count: exactly"),
    "calibrated": Tolerance("rel", 0.01, "the calibration point: within ±1 % (by construction)"),
}


@dataclass(frozen=True)
class Cause:
    """A named experiment that removes one cause and measures the claim's value again."""

    label: str
    value: float
    command: str


@dataclass(frozen=True)
class Refutation:
    """An experiment's bound that the paper's value lies beyond, and why."""

    reason: str
    bound: float | None  # the best value the experiment reached; None: the run's own value
    command: str = ""  # "": the run's own command


@dataclass(frozen=True)
class SeedMedian:
    """D-SEEDS (docs/thesis.md): the row's measure over `n` seeds (or seeded placements); the
    verdict is the median's, with the row's tolerance unchanged."""

    n: int
    median: float
    lo: float
    hi: float
    inside: int  # seeds whose value is inside the tolerance
    command: str


Getter = Callable[[Mapping[str, Any]], float]


@dataclass(frozen=True)
class ClaimSpec:
    id: str
    claim: str
    where: str
    figure: str  # the figure (or table) whose run gives ours
    paper: float
    tolerance: str  # a key of TOLERANCES
    ours: Getter  # from the figures, by id
    fmt: str = "{:.0f}"  # how ours and the paper's value are printed
    paper_hi: float | None = None  # the upper end of a "range" claim
    uncertain: str = ""  # why the paper's value is uncertain (footnote; printed with "≈")
    cause: Cause | None = None
    refuted: Refutation | None = None
    open_note: str = ""  # for an open row: what is missing
    seeds: SeedMedian | None = None  # D-SEEDS: judged on the median over seeds, not on ours


@dataclass(frozen=True)
class Claim:
    """One row of a claims table, judged."""

    id: str
    claim: str
    where: str
    paper: str
    ours: str
    tolerance: str
    verdict: str
    experiment: str
    footnote: str = ""

    @property
    def outcome(self) -> str:
        return self.verdict.split(":", 1)[0]


def _paper_text(spec: ClaimSpec) -> str:
    mark = "≈ " if spec.uncertain else ""
    if spec.paper_hi is not None:
        return f"{mark}{spec.fmt.format(spec.paper)} to {spec.fmt.format(spec.paper_hi)}"
    return mark + spec.fmt.format(spec.paper)


def judge(spec: ClaimSpec, ours: float | None, run_command: str) -> Claim:
    """The row of `spec` with our value `ours` (None: the figure was not drawn)."""
    tol = TOLERANCES[spec.tolerance]
    text = "not run" if ours is None else spec.fmt.format(ours)
    experiments = [run_command]
    if spec.seeds is not None:
        return _judge_on_seeds(spec, text, tol, experiments)
    if ours is not None and tol.holds(ours, spec.paper, spec.paper_hi):
        verdict = "reproduced"
    elif spec.cause is not None and tol.holds(spec.cause.value, spec.paper, spec.paper_hi):
        verdict = f"explained: {spec.cause.label} gives {spec.fmt.format(spec.cause.value)}"
        experiments.append(spec.cause.command)
    elif (
        spec.refuted is not None
        and (bound := spec.refuted.bound if spec.refuted.bound is not None else ours) is not None
        and not tol.holds(bound, spec.paper, spec.paper_hi)
    ):
        verdict = f"refuted: {spec.refuted.reason}"
        experiments.append(spec.refuted.command or run_command)
    elif ours is None:
        verdict = "open: the figure was not drawn"
    else:
        note = spec.open_note or "no experiment isolates the cause yet"
        if spec.cause is not None:
            note = (
                f"{spec.cause.label} gives {spec.fmt.format(spec.cause.value)}, still outside; "
                + note
            )
            experiments.append(spec.cause.command)
        verdict = f"open: {note}"
    return _claim(spec, text, tol, verdict, experiments)



def _claim(
    spec: ClaimSpec, ours: str, tol: Tolerance, verdict: str, experiments: list[str]
) -> Claim:
    """The table's row: the spec's claim, ours, the tolerance's wording, the verdict and the
    experiments' commands (each once, in order)."""
    return Claim(
        spec.id,
        spec.claim,
        spec.where,
        _paper_text(spec),
        ours,
        tol.text.split(":", 1)[1].strip(),
        verdict,
        "; ".join(f"`{e}`" for e in dict.fromkeys(experiments)),
        spec.uncertain,
    )

def _judge_on_seeds(spec: ClaimSpec, ours: str, tol: Tolerance, experiments: list[str]) -> Claim:
    """D-SEEDS: reproduced if the median over the seeds is inside the tolerance; refuted in our
    model if it is outside, saying whether any seed reaches the paper's value."""
    sm = spec.seeds
    assert sm is not None
    # the median of a share to a tenth of a point (at the edge it must show its side); the
    # range as the benchmark prints it
    f = ("{:.1%}" if spec.fmt == "{:.0%}" else spec.fmt).format
    stats = (
        f"median of {sm.n} seeds {f(sm.median)}, range {spec.fmt.format(sm.lo)}–"
        f"{spec.fmt.format(sm.hi)}, "
        f"{sm.inside} of {sm.n} inside (D-SEEDS)"
    )
    experiments.append(sm.command)
    hi = spec.paper if spec.paper_hi is None else spec.paper_hi
    if tol.holds(sm.median, spec.paper, spec.paper_hi):
        verdict = f"reproduced: {stats}"
    elif sm.hi < spec.paper or sm.lo > hi:
        verdict = f"refuted: in our model, {stats}; no seed reaches the paper's value"
    else:
        verdict = f"refuted: in our model as a typical value, {stats}"
    return _claim(spec, ours, tol, verdict, experiments)


def judge_all(specs: Sequence[ClaimSpec], figs: Mapping[str, Any], run_command: str) -> list[Claim]:
    """Every row whose figure was drawn, judged on it."""
    return [judge(s, s.ours(figs), run_command) for s in specs if s.figure in figs]


def markdown(claims: Sequence[Claim]) -> str:
    """The table, its footnotes (uncertain paper values) and the tolerances it was judged by."""
    out = [
        "| # | claim | where | paper | ours | tolerance | verdict | experiment |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
    for c in claims:
        paper = c.paper
        if c.footnote:
            notes.append(c.footnote)
            paper += f" (note {c.id})"
        cells = (c.id, c.claim, c.where, paper, c.ours, c.tolerance, c.verdict, c.experiment)
        out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    counts = {k: sum(1 for c in claims if c.outcome == k) for k in VERDICTS}
    out += [
        "",
        "Verdicts: " + ", ".join(f"{n} {k}" for k, n in counts.items() if n) + ".",
        "",
        "Tolerances, stated before the runs (pubsub_spec/claims.py, `TOLERANCES`): "
        + "; ".join(t.text for t in TOLERANCES.values())
        + ".",
    ]
    if notes:
        out += ["", "Notes on the paper's values marked ≈ (uncertain):", ""]
        out += [f"- {c.id}: {c.footnote}." for c in claims if c.footnote]
    return "\n".join(out)


VERDICTS = ("reproduced", "explained", "refuted", "open")


# -- the thesis, Chapter 4 ---------------------------------------------------------------------
def _o(fig: str, key: str) -> Getter:
    return lambda figs: float(figs[fig].ours[key])


def _ratio(fig: str, num: str, den: str) -> Getter:
    return lambda figs: float(figs[fig].ours[num]) / float(figs[fig].ours[den])


def _sweep(fig: str, series: str, end: int) -> Getter:
    return lambda figs: float(figs[fig].series[series][end][1])


def _growth(fig: str, series: str) -> Getter:
    def get(figs: Mapping[str, Any]) -> float:
        pts = figs[fig].series[series]
        return 100.0 * (float(pts[-1][1]) / float(pts[0][1]) - 1)

    return get


def _share_of(fig: str, key_a: str, key_b: str) -> Getter:
    """ours[key_b] / ours[key_a]: e.g. what share of the nodes above 6k the cut-off leaves (1
    when there were none to remove: nothing was reduced)."""

    def get(figs: Mapping[str, Any]) -> float:
        a, b = float(figs[fig].ours[key_a]), float(figs[fig].ours[key_b])
        return b / a if a else 1.0

    return get


GAPS = "python -m benchmarks.bench_thesis_gaps --nodes 1000 --events 500 --only"
AT_1000 = "1000 × 5 × 500, seed 1"
PCT = "{:.0%}"
X = "{:.2f}×"

THESIS_CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "T1", "mean subscription installation latency (ms)", "§4.3.1, Fig. 4.1", "4.1",
        331.0, "mean", _o("4.1", "mean_ms"),
        cause=Cause(
            f"PNS(16) and RndLeafProbe started at the leaf's level (G4; {AT_1000})", 359.0,
            f"{GAPS} probelevel",
        ),
    ),
    ClaimSpec(
        "T2", "installations done within 600 ms", "§4.3.1, Fig. 4.1", "4.1",
        0.70, "share", _o("4.1", "frac_le_600ms"), fmt=PCT,
        cause=Cause(
            f"PNS(16) (G4; {AT_1000})", 0.74,
            f"{GAPS} probelevel",
        ),
    ),
    ClaimSpec(
        "T3", "installations done within 1 s", "§4.3.1, Fig. 4.1", "4.1",
        0.90, "share", _o("4.1", "frac_le_1000ms"), fmt=PCT,
        uncertain="'1 s' is read from the scanned text's 'is'",
    ),
    ClaimSpec(
        "T4", "installation bytes per node: share within 1.4× the mean (20 B of 14.32 B)",
        "§4.3.1, Fig. 4.2", "4.2", 0.78, "share", _o("4.2", "frac_le_1.4x_mean"), fmt=PCT,
    ),
    ClaimSpec(
        "T5", "installation bytes per node: share within 4.2× the mean (60 B of 14.32 B)",
        "§4.3.1, Fig. 4.2", "4.2", 0.98, "share", _o("4.2", "frac_le_4.2x_mean"), fmt=PCT,
    ),
    ClaimSpec(
        "T6", "installation bytes: busiest node over the mean (100 B of 14.32 B)",
        "§4.3.1, Fig. 4.2", "4.2", 100 / 14.32, "approx", _o("4.2", "max_over_mean"), fmt=X,
        uncertain="'a few nodes whose bandwidth cost is about 100 bytes/sub'",
        refuted=Refutation(
            "over seeds 1–10 at 1000 × 5 the busiest node sends 4.51–5.47× the mean, none "
            "reaching the tolerance's 5.58×: in our model (the byte model D-MSG on Table "
            "4.1's workload) no seed makes the thesis' few ≈ 7× nodes",
            5.47, f"{GAPS} seeds",
        ),
    ),
    ClaimSpec(
        "T7", "mean delivery latency (ms)", "§4.3.2, Fig. 4.3", "4.3",
        333.0, "mean", _o("4.3", "mean_ms"),
        cause=Cause(f"PNS(16) (G4; {AT_1000})", 358.0, f"{GAPS} latency"),
    ),
    ClaimSpec(
        "T8", "deliveries done within 400 ms", "§4.3.2, Fig. 4.3", "4.3",
        0.70, "share", _o("4.3", "frac_le_400ms"), fmt=PCT,
        cause=Cause(f"PNS(16) (G4; {AT_1000})", 0.68, f"{GAPS} latency"),
    ),
    ClaimSpec(
        "T9", "deliveries done within 1 s ('nearly all')", "§4.3.2, Fig. 4.3", "4.3",
        1.0, "nearly-all", _o("4.3", "frac_le_1000ms"), fmt=PCT,
        uncertain="'1 s' is read from the scanned text's 'is'",
    ),
    ClaimSpec(
        "T10", "publication bytes per node: share within 1.2× the mean (1.6k of 1.32k)",
        "§4.3.2, Fig. 4.4", "4.4", 0.70, "share", _o("4.4", "frac_le_1.2x_mean"), fmt=PCT,
        seeds=SeedMedian(30, 0.7520, 0.74, 0.76, 12, f"{GAPS} seeds --rows T10,T20 --nseeds 30"),
    ),
    ClaimSpec(
        "T11", "publication bytes per node: share within 2.3× the mean (3k of 1.32k)",
        "§4.3.2, Fig. 4.4", "4.4", 0.90, "share", _o("4.4", "frac_le_2.3x_mean"), fmt=PCT,
    ),
    ClaimSpec(
        "T12", "publication bytes: share of nodes above 4.5× the mean (about 7 nodes above 6k)",
        "§4.3.2, Fig. 4.4", "4.4", 0.007, "approx", _o("4.4", "share_over_4.5x_mean"),
        fmt="{:.2%}", uncertain="'about 7 nodes' of 1000",
        refuted=Refutation(
            "over seeds 1–10 at 1000 × 5 × 500 2.4–3.1 % of the nodes, and 2.1–2.7 % with the "
            "popular Zipf sub-ranges on a seeded permutation (G3): 21–31 nodes of 1000 carry "
            "the popular sub-ranges' publications, not about 7",
            0.021, f"{GAPS} seeds,skew",
        ),
    ),
    ClaimSpec(
        "T13", "publication bytes: busiest node over the mean (11k of 1.32k)",
        "§4.3.2, Fig. 4.4", "4.4", 11000 / 1320, "approx", _o("4.4", "max_over_mean"), fmt=X,
        uncertain="'no more than 11k' is read from the scanned text's 'ilk'",
        cause=Cause(
            "the popular Zipf sub-ranges on seeded permutations 1–30 (G3, D-SEEDS: the median; "
            + AT_1000 + ")", 10.62, f"{GAPS} placements --nseeds 30",
        ),
        refuted=Refutation(
            "in our model as a typical value (D-SEEDS): the thesis' placement of the popular "
            "sub-ranges (the lowest) gives 22.56× on the full page, and over 30 seeded placements "
            "the median is "
            "10.62× (range 8.24–14.92×, 10 of 30 inside): where the popular sub-ranges land "
            "decides, and the typical placement's busiest node is above the thesis' ≈ 8.3×",
            10.62, f"{GAPS} placements --nseeds 30",
        ),
    ),
    ClaimSpec(
        "T14", "multicast saves mean probe bytes per node (%)", "§4.3.2, Fig. 4.5", "4.5",
        29.1, "mean", _o("4.5", "saving_pct"), fmt="{:.1f}",
        refuted=Refutation(
            "multicast carries only the publisher's first stage (§3.4.2, §4.2.1 item 6), 21 % "
            "of probe bytes at 1000 nodes; even a free first stage saves at most that (G1)",
            21.0, f"{GAPS} multicast",
        ),
    ),
    ClaimSpec(
        "T15", "multicast: share of nodes under 1.2k (1.2k / 1.05k × our multicast mean)",
        "§4.3.2, Fig. 4.5", "4.5", 0.70, "share", _o("4.5", "frac_multicast_le_1.2k"), fmt=PCT,
        refuted=Refutation(
            "multicast carries only the publisher's first stage (G1), so the per-node "
            "distribution stays unicast's: 79–81 % of nodes under the threshold in each of "
            "seeds 1–10 at 1000 × 5 × 500",
            0.79, f"{GAPS} seeds",
        ),
    ),
    ClaimSpec(
        "T16", "unicast: share of nodes under the same 1.2k", "§4.3.2, Fig. 4.5", "4.5",
        0.55, "share", _o("4.5", "frac_unicast_le_1.2k"), fmt=PCT,
        refuted=Refutation(
            "the threshold follows our multicast mean, which multicast lowers by at most the "
            "first stage's share (G1, row T14): 79–81 % of unicast nodes under it in each of "
            "seeds 1–10 at 1000 × 5 × 500",
            0.79, f"{GAPS} seeds",
        ),
    ),
    ClaimSpec(
        "T17", "busiest node's probe bytes, multicast over unicast (9.4k / 12.2k)",
        "§4.3.2, Fig. 4.6", "4.6", 9.4 / 12.2, "mean",
        _ratio("4.6", "max_multicast", "max_unicast"), fmt="{:.2f}",
        refuted=Refutation(
            "multicast carries only the publisher's first stage (§3.4.2, §4.2.1 item 6); the "
            "busiest node's bytes are LeafNodeRoutingTable fan-out and forwarded probes, sent "
            "by unicast in both models: with its first stage free it keeps 1,540 of 1,543 "
            f"B/event (G1; {AT_1000})", 1.00, f"{GAPS} firststage",
        ),
    ),
    ClaimSpec(
        "T18", "every one of the top 10 % ranks lower with multicast", "§4.3.2, Fig. 4.6",
        "4.6", 1.0, "all", _o("4.6", "top_lower_frac"), fmt=PCT,
        refuted=Refutation(
            "multicast leaves the forwarded probes, most of the top nodes' bytes, as they are "
            "(G1): 8–17 % of the top 10 % rank lower in seeds 1–10 at 1000 × 5 × 500",
            0.17, f"{GAPS} seeds",
        ),
    ),
    ClaimSpec(
        "T19", "the cut-off lowers mean probe bytes per node (%)", "§4.3.2, Fig. 4.7", "4.7",
        50.5, "mean", _o("4.7", "saving_pct"), fmt="{:.1f}",
        refuted=Refutation(
            "at 1000 nodes no c in 0.05–0.5 saves more than 39 % (c = 0.05): probes land on the "
            "deep leaves inside the c × c square (G2)", 39.0, f"{GAPS} cutoff",
        ),
    ),
    ClaimSpec(
        "T20", "the cut-off leaves at most half the nodes above 6k (6k / 1.05k × our mean)",
        "§4.3.2, Fig. 4.7", "4.7", 0.0, "range", _share_of(
            "4.7", "share_over_6k_no_cutoff", "share_over_6k_cutoff"
        ), fmt="{:.2f}", paper_hi=0.5,
        seeds=SeedMedian(30, 0.5312, 0.44, 0.65, 10, f"{GAPS} seeds --rows T10,T20 --nseeds 30"),
    ),
    ClaimSpec(
        "T21", "every one of the top 20 of 1000 (2 %) ranks lower with the cut-off",
        "§4.3.2, Fig. 4.8", "4.8", 1.0, "all", _o("4.8", "top20_lower_frac"), fmt=PCT,
        refuted=Refutation(
            "the busiest peers host the depth-3 node over the Zipf low end, whose fan-out the "
            "c × c square keeps while the mean falls: with c = 0.1 the busiest node's probe "
            "bytes rise (54.7 × 23.5 → 35.7 × 43.3 B/event), so the top rank is not lower "
            "(G2, G3)", 19 / 20, f"{GAPS} cutoff,hotspot",
        ),
    ),
    ClaimSpec(
        "T22", "mean delivery latency at the sweep's smallest network (ms; 1000 nodes)",
        "§4.3.3, Fig. 4.9", "4.9", 330.0, "mean", _sweep("4.9", "average", 0),
        cause=Cause(f"PNS(16) (G4; {AT_1000})", 358.0, f"{GAPS} latency"),
    ),
    ClaimSpec(
        "T23", "mean delivery latency growth over the sweep (%; 1000 → 5000 nodes)",
        "§4.3.3, Fig. 4.9", "4.9", 30.3, "mean", _growth("4.9", "average"), fmt="{:+.0f}",
        cause=Cause("PNS(16) (1000 → 5000 nodes × 5 × 500, seed 1)", 5.0, f"{GAPS} growth"),
        refuted=Refutation(
            "+9 to +16 % on seeds 1–5 (1000 → 5000 nodes × 5 × 200), +15 % in the full sweep, "
            "+5 % with PNS: Pastry's routes grow like log16 N (about +23 % hops) and a "
            "delivery's last hop is direct (§3.4.3), so in our model no seed comes within the "
            "tolerance's 27–33 %",
            16.0, "python -m benchmarks.bench_thesis_gaps --events 200 --only growthseeds",
        ),
    ),
    ClaimSpec(
        "T24", "maximum delivery latency stays within 1.6–1.8 s (lowest point of the sweep, ms)",
        "§4.3.3, Fig. 4.9", "4.9", 1600.0, "range",
        lambda figs: min(p[1] for p in figs["4.9"].series["maximum"]), paper_hi=1800.0,
        cause=Cause("PNS(16) (1000 nodes × 5 × 500, seed 1)", 759.0, f"{GAPS} growth"),
        refuted=Refutation(
            "the latency model (D-NET: random plane coordinates, a bounded and light tail, not "
            "the King data's) keeps every maximum under 1.6 s: 1,181–1,350 ms over the full "
            "sweep (10,000 events per size), 1,049–1,230 ms at 1000 nodes on seeds 1–5 "
            "(200 events)",
            1350.0, "python -m benchmarks.bench_thesis_gaps --events 200 --only growthseeds",
        ),
    ),
    ClaimSpec(
        "T25", "mean bytes per node per event fall slightly with size (last / first − 1, %)",
        "§4.3.3, Fig. 4.10", "4.10", -20.0, "range", _growth("4.10", "average"), fmt="{:+.0f}",
        paper_hi=0.0,
        cause=Cause(
            "the thesis' sizes, 1000 → 5000 nodes (median of seeds 1–5, −5 to −9 %, × 5 × 200; "
            "the full sweep −8 %)", -7.0,
            "python -m benchmarks.bench_thesis_gaps --events 200 --only growthseeds",
        ),
    ),
    ClaimSpec(
        "T26", "the busiest node's bytes rise with size (last / first − 1, %)",
        "§4.3.3, Fig. 4.10", "4.10", 0.0, "rises", _growth("4.10", "maximum"), fmt="{:+.0f}",
    ),
    ClaimSpec(
        "T27", "mean RTT at the sweep's largest size (ms; 176 at 5000 nodes)",
        "§4.3.3, Table 4.5", "T4.5", 176.0, "mean", _sweep("T4.5", "ours", -1),
    ),
)  # fmt: skip


def thesis_claims(figs: Sequence[Any], scale: str) -> list[Claim]:
    """The thesis' rows, judged on the figures just drawn (reference/thesis/figures.py)."""
    return judge_all(THESIS_CLAIMS, {f.id: f for f in figs}, f"pubsub-spec figures --scale {scale}")


# -- LBDD §4 -----------------------------------------------------------------------------------
def _lbdd_y(fig: str, name: str, x: float) -> Getter:
    return lambda figs: float(dict(figs[fig].series[name])[x])


def _falling(fig: str, name: str) -> Getter:
    """The share of steps along the series that fall."""

    def get(figs: Mapping[str, Any]) -> float:
        ys = [y for _, y in figs[fig].series[name]]
        return sum(1 for a, b in itertools.pairwise(ys) if b < a) / max(1, len(ys) - 1)

    return get


def _first_x_at(fig: str, name: str, level: float) -> Getter:
    return lambda figs: min(
        (x for x, y in figs[fig].series[name] if y >= level), default=float("inf")
    )


def _share_near(fig: str, name: str, target: float, rel: float, from_x: float) -> Getter:
    def get(figs: Mapping[str, Any]) -> float:
        ys = [y for x, y in figs[fig].series[name] if x >= from_x]
        return sum(1 for y in ys if abs(y - target) <= rel * target) / max(1, len(ys))

    return get


def _ratio_y(fig: str, name: str) -> Getter:
    def get(figs: Mapping[str, Any]) -> float:
        pts = figs[fig].series[name]
        return float(pts[-1][1] / pts[0][1])

    return get


LBDD_RUN = "pubsub-spec figures --only LT1,L1,L2,L3,L4"
GIB8_MBIT = 8 * 2**30 * 8 / 1e6  # the 8 GB payload in Mbit (LBDD §4.1)

BOUNDS = "python -m pubsub_spec.claims lbdd-bounds"


def lbdd_bounds() -> dict[str, float]:
    """What the LBDD paper's own numbers imply for the publisher (LBDD §4.1-§4.2), in the two
    sender models there are: an upload limit only (ours, D-L5) or, on top of it, a fixed rate
    per connection r. Printed by `python -m pubsub_spec.claims lbdd-bounds`."""
    upload = GIB8_MBIT * 11 / 7810.0  # §4.2 1): 8 GB to 11 subscribers, point to point, 7810 s
    lo = TOLERANCES["mean"].amount
    return {
        "publisher upload (Mbit/s; 11 x 8 GB in 7810 s)": upload,
        # §4.2 3): point to point saturates from 6 subscribers on: 5 r < upload <= 6 r
        "per-connection r, lowest (upload / 6)": upload / 6,
        "per-connection r, highest (upload / 5)": upload / 5,
        # §4.2 2): LBDD's 24 Mbit/s reaches each subscriber over one connection from its parent
        "per-connection r LBDD needs (24 Mbit/s - 10 %)": 24.0 * (1 - lo),
        # upload limit only: 3 subscribers make a fan-out of at most 3 anywhere in the tree
        "LBDD rate at 3 subscribers, upload only, lowest": upload / 3,
        "LBDD rate within 24 Mbit/s +-10 %, highest": 24.0 * (1 + lo),
        # so at most 8 of the 9 sizes 3..11 can be near 24 Mbit/s
        "share of sizes 3..11 near 24 Mbit/s, upload only, highest": 8 / 9,
        # upload limit only: one subscriber takes the publisher's whole upload
        "publisher load at 1 subscriber, upload only": 1.0,
    }


LBDD_CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "L1", "point-to-point delay, 11 subscribers (s; the calibration point, D-L8)",
        "§4.2 1)", "L2", 7810.0, "calibrated",
        lambda figs: GIB8_MBIT / float(dict(figs["L2"].series["ours: point to point"])[11]),
        fmt="{:,.0f}",
    ),
    ClaimSpec(
        "L2", "LBDD delay, 11 subscribers (s)", "§4.2 1)", "L2", 3020.0, "mean",
        lambda figs: float(figs["L2"].ours["LBDD delay s, 11 subscribers"]), fmt="{:,.0f}",
    ),
    ClaimSpec(
        "L3", "LBDD rate, 11 subscribers (Mbit/s; 'around 24')", "§4.2 2), Fig. 2", "L2",
        24.0, "mean", _lbdd_y("L2", "ours: LBDD", 11), fmt="{:.1f}",
    ),
    ClaimSpec(
        "L4", "LBDD rate stays around 24 Mbit/s from 3 to 11 subscribers (share of sizes "
        "within ±10 %)", "§4.2 2), Fig. 2", "L2", 1.0, "all",
        _share_near("L2", "ours: LBDD", 24.0, 0.10, 3), fmt=PCT,
        uncertain="Fig. 2 is lost in our copy; its x-axis (subscribers) is inferred from the "
        "text",
        refuted=Refutation(
            "with an upload limit only, 3 subscribers make a fan-out of at most 3, so the rate "
            "at 3 is at least 96.8 / 3 = 32.3 Mbit/s, above 26.4 (at most 8 of the 9 sizes "
            "near 24); with a per-connection limit r, 24 Mbit/s needs r >= 21.6, but rows L1 "
            "and L6 put r in [16.1, 19.4): the row cannot hold together with L1 and L6",
            8 / 9, BOUNDS,
        ),
    ),
    ClaimSpec(
        "L5", "point-to-point rate falls as subscribers are added (share of steps)",
        "§4.2 2), Fig. 2", "L2", 1.0, "all", _falling("L2", "ours: point to point"), fmt=PCT,
    ),
    ClaimSpec(
        "L6", "point-to-point publisher load reaches 100 % at (subscribers)", "§4.2 3), Fig. 3",
        "L3", 6.0, "count", _first_x_at("L3", "ours: point to point", 0.999),
        refuted=Refutation(
            "with an upload limit only (D-L5) one subscriber saturates the publisher; with a "
            "per-connection limit r, saturating from 6 on (5 r < 96.8 Mbit/s <= 6 r, row L1) "
            "puts r in [16.1, 19.4), below the 21.6 Mbit/s that LBDD's 24 per subscriber needs "
            "over one connection (row L3): the row cannot hold together with L1 and L3",
            None, BOUNDS,
        ),
    ),
    ClaimSpec(
        "L7", "LBDD publisher load always under 70 % (its maximum over 1–11 subscribers)",
        "§4.2 3), Fig. 3", "L3", 0.70, "below",
        lambda figs: max(y for _, y in figs["L3"].series["ours: LBDD"]), fmt=PCT,
        refuted=Refutation(
            "in our model (upload limit only, D-L5) one subscriber takes the publisher's whole "
            "upload (100 %); only a per-connection limit could keep it under 70 %, and the one "
            "the paper's rows L1 and L6 imply contradicts its row L3 (row L6)",
            1.0, BOUNDS,
        ),
    ),
    ClaimSpec(
        "L8", "LBDD publisher load rises with subscribers (11 over 1 subscriber)",
        "§4.2 3), Fig. 3", "L3", 1.0, "rises", _ratio_y("L3", "ours: LBDD"), fmt="{:.2f}",
        refuted=Refutation(
            "in our model (upload limit only, D-L5) one subscriber already takes the "
            "publisher's whole upload (100 %), so no larger size can rise above it; only a "
            "per-connection limit could, and the one the paper's rows L1 and L6 imply "
            "contradicts its row L3 (row L6)",
            None, BOUNDS,
        ),
    ),
    ClaimSpec(
        "L9", "tree depth within [5, 9] for 100–500 subscribers (share of address sets)",
        "§4.3, Tab. 1", "LT1", 1.0, "all",
        lambda figs: float(figs["LT1"].ours["share of sets with depth in [5, 9]"]), fmt=PCT,
        refuted=Refutation(
            "n random digests fill about log2 n + 1 buckets, one level each: at n = 500 that "
            "is 10 levels in most address sets, so one set per n (as the paper's table) can "
            "stay within 9, many cannot",
            None,
        ),
    ),
    ClaimSpec(
        "L10", "exactly n copies for n subscribers (share of trees)", "§4.3", "LT1", 1.0,
        "all", lambda figs: float(figs["LT1"].ours["share of trees with n copies"]), fmt=PCT,
    ),
    ClaimSpec(
        "L11", "the publisher's copies stay almost the same, n = 500 over n = 100",
        "§4.3, Fig. 4", "L4", 0.8, "range",
        lambda figs: float(figs["L4"].ours["publisher copies n=500"])
        / float(figs["L4"].ours["publisher copies n=100"]),
        fmt="{:.2f}", paper_hi=1.25,
    ),
    ClaimSpec(
        "L12", "so the publisher's contribution rate falls with n (share of steps)",
        "§4.3, Fig. 4", "L4", 1.0, "all", _falling("L4", "ours: publisher"), fmt=PCT,
    ),
)  # fmt: skip


def lbdd_claims(figs: Sequence[Any], scale: str) -> list[Claim]:
    """The LBDD paper's rows, judged on the figures just drawn (reference/lbdd/figures.py)."""
    return judge_all(LBDD_CLAIMS, {f.id: f for f in figs}, f"{LBDD_RUN} --scale {scale}")


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pubsub_spec.claims lbdd-bounds`: print the arithmetic behind the refuted LBDD
    rows (L4, L6-L8)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["lbdd-bounds"]:
        print("usage: python -m pubsub_spec.claims lbdd-bounds", file=sys.stderr)
        return 2
    for name, value in lbdd_bounds().items():
        print(f"{name:>58}  {value:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
