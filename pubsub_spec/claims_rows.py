"""A row of a paper's claims table in the common form, and the table as Markdown: the form the
Kyra and Tam figure pages share (docs/figures/kyra.md, docs/figures/tam.md); the thesis' and
LBDD's tables are computed by pubsub_spec/claims.py in the same columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# the columns of every paper's claims table (pubsub_spec/claims.py)
HEADER = "| # | claim | where | paper | ours | tolerance | verdict | experiment |"


@dataclass(frozen=True)
class ClaimRow:
    """A row of the claims table in the common form."""

    cid: str
    claim: str
    section: str
    paper: str  # the paper's value (uncertain: marked † and explained by the page's note)
    ours: str
    tolerance: str  # the criterion, stated before the run
    verdict: str  # reproduced / explained (...) / refuted (...) / not measured (...)
    command: str


def claims_lines(rows: Sequence[ClaimRow], uncertain: str) -> list[str]:
    """The claims table in the common form, Markdown; every paper value is marked † (our
    reading, `uncertain` says why), and the verdicts are counted under the table."""
    out = [HEADER, "|---|---|---|---|---|---|---|---|"]
    out += [
        f"| {r.cid} | {r.claim} | {r.section} | {r.paper} † | {r.ours} | {r.tolerance} "
        f"| {r.verdict} | `{r.command}` |"
        for r in rows
    ]
    kinds = ("reproduced", "explained", "refuted", "not measured")
    counts = {k: sum(r.verdict.startswith(k) for r in rows) for k in kinds}
    done = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    return [*out, "", f"Verdicts: {done}. Tolerances: the column, stated before the run.", "",
            f"† {uncertain}"]  # fmt: skip
