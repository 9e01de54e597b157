"""The conformance report: Markdown and HTML (with an embedded plot) of the verdicts of every
implementation on every trace, failures first with what was missing, duplicated or spurious."""

from __future__ import annotations

import base64
import html
import io
from collections import defaultdict
from pathlib import Path

from conformance.verdict import Verdict, overall


def _plot_png(verdicts: list[Verdict]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    impls = sorted({v.impl for v in verdicts})
    kinds = ["pass", "fail", "unknown", "skipped"]
    colours = {"pass": "#2e7d32", "fail": "#c62828", "unknown": "#f9a825", "skipped": "#9e9e9e"}
    fig, ax = plt.subplots(figsize=(7, 0.6 + 0.5 * len(impls)))
    left = [0] * len(impls)
    for kind in kinds:
        counts = [sum(1 for v in verdicts if v.impl == i and v.verdict == kind) for i in impls]
        ax.barh(impls, counts, left=left, color=colours[kind], label=kind)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    ax.set_xlabel("traces")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("verdicts per implementation")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def summary_rows(verdicts: list[Verdict]) -> list[tuple[str, str, int, int, int, int, int]]:
    by_impl: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_impl[v.impl].append(v)
    rows = []
    for impl in sorted(by_impl):
        vs = by_impl[impl]
        count = {k: sum(1 for v in vs if v.verdict == k) for k in ("pass", "fail", "unknown")}
        skipped = sum(1 for v in vs if v.verdict == "skipped")
        checked = sum(v.checked for v in vs)
        rows.append(
            (impl, overall(vs), count["pass"], count["fail"], count["unknown"], skipped, checked)
        )
    return rows


def markdown(verdicts: list[Verdict], title: str, notes: list[str]) -> str:
    lines = [f"# {title}", "", *notes, ""]
    lines += [
        "| implementation | verdict | pass | fail | unknown | skipped | publishes checked |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in summary_rows(verdicts):
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    failures = [v for v in verdicts if v.verdict != "pass"]
    lines += ["", "## Failures and other non-passing verdicts", ""]
    if not failures:
        lines.append("None.")
    for v in failures:
        lines.append(f"- **{v.impl}** on `{v.trace_id}` ({v.generator}): {v.describe()}")
        if "shrunk" in v.extra:
            lines.append(
                f"  - smallest failing trace: `{v.extra['shrunk']}` ({v.extra['shrunk_ops']} ops)"
            )
    lines += ["", "## All verdicts", "", "| implementation | trace | generator | verdict |"]
    lines.append("|---|---|---|---|")
    for v in verdicts:
        lines.append(f"| {v.impl} | {v.trace_id} | {v.generator} | {v.describe()} |")
    return "\n".join(lines) + "\n"


def write_report(out: Path, verdicts: list[Verdict], title: str, notes: list[str]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    md = markdown(verdicts, title, notes)
    (out / "report.md").write_text(md, encoding="utf-8")
    png = base64.b64encode(_plot_png(verdicts)).decode()
    body = "\n".join(f"<p>{html.escape(n)}</p>" for n in notes)
    table = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in row) + "</tr>"
        for row in summary_rows(verdicts)
    )
    fails = "".join(
        f"<li><b>{html.escape(v.impl)}</b> on <code>{html.escape(v.trace_id)}</code>: "
        f"{html.escape(v.describe())}"
        + (
            f" — smallest failing trace: <code>{html.escape(v.extra['shrunk'])}</code>"
            if "shrunk" in v.extra
            else ""
        )
        + "</li>"
        for v in verdicts
        if v.verdict != "pass"
    )
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "td,th{border:1px solid #ccc;padding:2px 8px}table{border-collapse:collapse}</style>"
        f"</head><body><h1>{html.escape(title)}</h1>{body}"
        "<table><tr><th>implementation</th><th>verdict</th><th>pass</th><th>fail</th>"
        f"<th>unknown</th><th>skipped</th><th>publishes checked</th></tr>{table}</table>"
        f"<p><img alt='verdicts per implementation' src='data:image/png;base64,{png}'></p>"
        f"<h2>Non-passing verdicts</h2><ul>{fails or '<li>None.</li>'}</ul></body></html>"
    )
    (out / "report.html").write_text(page, encoding="utf-8")
    return out / "report.md"
