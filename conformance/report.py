"""The conformance report: `report.md` and `report.html` (with the verdict table drawn as an
embedded PNG) of every implementation on every trace set (traces grouped by generator):

1. the verdict of each implementation over all traces, with counts;
2. the table implementation x trace set, and its plot;
3. the traces rejected as malformed (each once, with file, line and field);
4. every failure and other non-passing verdict, naming the missing, duplicate and spurious
   (event, subscription) pairs or the op / output line, with its shrunk trace inline;
5. all verdicts.

When the protocol level was judged (conformance/OBSERVATIONS.md, "Verdict levels"), the summary
and the list of all verdicts get a `protocol` column (`conforms`, `deviates (rule)`, `not
reported`) and a section lists every protocol deviation with its rule, source and observation.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections import Counter, defaultdict
from pathlib import Path

from pubsub_spec.conformance.verdict import (
    CORE_FEATURES,
    MAX_SKIPPED_SHARE,
    Verdict,
    overall,
    overall_protocol,
    skipped_features,
)
from pubsub_spec.reference.sim.system import FEATURES

KINDS = ("pass", "fail", "unknown", "skipped")
COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "unknown": "#f9a825", "skipped": "#9e9e9e"}
REJECTED = ("bad-trace", "bad-expected")
INLINE_SHRUNK_LINES = 40


def _trace_set(v: Verdict) -> str:
    return "(rejected)" if v.kind in REJECTED else v.generator


def _impls(verdicts: list[Verdict]) -> list[str]:
    return list(dict.fromkeys(v.impl for v in verdicts))


def _sets(verdicts: list[Verdict]) -> list[str]:
    return sorted({_trace_set(v) for v in verdicts})


def summary_rows(
    verdicts: list[Verdict], subset: frozenset[str] | None = None
) -> list[tuple[str, str, int, int, int, int, int]]:
    """(implementation, overall verdict, pass, fail, unknown, skipped, publishes checked); the
    overall verdict under the feature policy (`conformance.verdict.overall`, `subset`)."""
    by_impl: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_impl[v.impl].append(v)
    rows = []
    for impl, vs in by_impl.items():  # in the order the implementations were given
        n = {k: sum(1 for v in vs if v.verdict == k) for k in KINDS}
        checked = sum(v.checked for v in vs)
        verdict = overall(vs, subset)
        rows.append((impl, verdict, n["pass"], n["fail"], n["unknown"], n["skipped"], checked))
    return rows


def judged_protocol(verdicts: list[Verdict]) -> bool:
    """Whether the protocol level was judged (then the reports show its column)."""
    return any(v.protocol for v in verdicts)


def protocol_by_impl(verdicts: list[Verdict]) -> dict[str, str]:
    """implementation -> its protocol level over the set (`verdict.overall_protocol`)."""
    by_impl: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_impl[v.impl].append(v)
    return {impl: overall_protocol(vs) for impl, vs in by_impl.items()}


def _summary_table(
    verdicts: list[Verdict], subset: frozenset[str] | None
) -> tuple[list[str], list[tuple[object, ...]]]:
    """The summary's header and rows, with the protocol column after the verdict when judged."""
    head = ["implementation", "verdict", "pass", "fail", "unknown", "skipped",
            "publishes checked"]  # fmt: skip
    rows: list[tuple[object, ...]] = list(summary_rows(verdicts, subset))
    if judged_protocol(verdicts):
        levels = protocol_by_impl(verdicts)
        head.insert(2, "protocol")
        rows = [(r[0], r[1], levels.get(str(r[0]), ""), *r[2:]) for r in rows]
    return head, rows


def protocol_deviations(verdicts: list[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if v.protocol.startswith("deviates")]


def feature_rows(verdicts: list[Verdict]) -> list[tuple[str, ...]]:
    """Per implementation, per feature: the traces skipped because it lacks the feature."""
    rows = []
    for impl in _impls(verdicts):
        lacking = Counter(f for v in verdicts if v.impl == impl for f in skipped_features(v))
        rows.append((impl, *(str(lacking[f]) if lacking[f] else "-" for f in FEATURES)))
    return rows


POLICY_NOTE = (
    f"Feature policy: an implementation must support {', '.join(sorted(CORE_FEATURES))} and may "
    f"skip at most {MAX_SKIPPED_SHARE:.0%} of the traces for features it lacks; otherwise it is "
    "`incomplete` (exit 1) unless a feature subset was named (docs/conformance.md)."
)


def matrix(verdicts: list[Verdict]) -> dict[tuple[str, str], dict[str, int]]:
    """(implementation, trace set) -> verdict -> count."""
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for v in verdicts:
        cell = cells.setdefault((v.impl, _trace_set(v)), dict.fromkeys(KINDS, 0))
        cell[v.verdict] = cell.get(v.verdict, 0) + 1
    return cells


def _cell_text(cell: dict[str, int] | None) -> str:
    if not cell:
        return "-"
    return ", ".join(f"{n} {k}" for k, n in cell.items() if n) or "-"


def _worst(cell: dict[str, int]) -> str:
    for k in ("fail", "unknown", "pass", "skipped"):
        if cell.get(k):
            return k
    return "skipped"


def short_label(impl: str, limit: int = 36) -> str:
    """A readable label: outside commands lose their directories (`cmd: python faulty.py
    --mode drop`), and a long label keeps its end, which tells commands apart."""
    if impl.startswith("cmd:"):
        words = impl[4:].split()
        impl = "cmd: " + " ".join(w.rsplit("/", 1)[-1] if "/" in w else w for w in words)
    return impl if len(impl) <= limit else "..." + impl[-(limit - 3) :]


def plot_png(verdicts: list[Verdict]) -> bytes:
    """The implementation x trace set table as a coloured grid (worst verdict per cell,
    annotated with passes / traces)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    impls, sets, cells = _impls(verdicts), _sets(verdicts), matrix(verdicts)
    labels = [short_label(i) for i in impls]
    width = 1.8 + 0.07 * max((len(x) for x in labels), default=0) + 1.0 * max(1, len(sets))
    fig, ax = plt.subplots(figsize=(width, 1.4 + 0.4 * max(1, len(impls))))
    for y, impl in enumerate(impls):
        for x, name in enumerate(sets):
            cell = cells.get((impl, name))
            colour = COLOURS[_worst(cell)] if cell else "#ffffff"
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colour, edgecolor="white"))
            if cell:
                total = sum(cell.values())
                ax.text(x + 0.5, y + 0.5, f"{cell['pass']}/{total}", ha="center", va="center",
                        color="white", fontsize=8)  # fmt: skip
    ax.set_xlim(0, max(1, len(sets)))
    ax.set_ylim(max(1, len(impls)), 0)
    ax.set_xticks([x + 0.5 for x in range(len(sets))], sets, rotation=30, ha="right", fontsize=8)
    ax.set_yticks([y + 0.5 for y in range(len(impls))], labels, fontsize=8)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.legend(
        handles=[Patch(color=COLOURS[k], label=k) for k in KINDS],
        loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False,
    )  # fmt: skip
    ax.set_title("passing traces / traces", fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _rejections(verdicts: list[Verdict]) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for v in verdicts:
        if v.kind in REJECTED:  # each rejection once (the same file for every implementation)
            seen.setdefault(v.reason, v.trace_id)
    return sorted((tid, reason) for reason, tid in seen.items())


def _shrunk_text(out: Path, v: Verdict) -> str | None:
    if "shrunk" not in v.extra:
        return None
    try:
        lines = (out / v.extra["shrunk"]).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    if len(lines) > INLINE_SHRUNK_LINES:
        return None
    return "\n".join(lines)


_MD_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*_[]<>|#!"})


def _md(text: object) -> str:
    """Text from traces and implementations, inert in Markdown: control characters and line
    breaks become spaces, Markdown punctuation and HTML are escaped."""
    flat = "".join(" " if (ord(c) < 32 or 0x7F <= ord(c) < 0xA0) else c for c in str(text))
    return flat.translate(_MD_SPECIAL)


def _code(text: object) -> str:
    """An inline code span that no backtick in `text` can close early."""
    flat = "".join(" " if (ord(c) < 32 or 0x7F <= ord(c) < 0xA0) else c for c in str(text))
    fence = "`" * (max((len(r) for r in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"  # a code span is literal text (CommonMark)


def markdown(
    verdicts: list[Verdict],
    title: str,
    notes: list[str],
    out: Path | None = None,
    subset: frozenset[str] | None = None,
) -> str:
    impls, sets, cells = _impls(verdicts), _sets(verdicts), matrix(verdicts)
    lines = [f"# {_md(title)}", "", *notes, POLICY_NOTE, ""]  # our Markdown: not escaped
    head, rows = _summary_table(verdicts, subset)
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_md(x) for x in row) + " |")
    lines += ["", "## Feature coverage: traces skipped for lack of a feature", ""]
    lines.append("| implementation | " + " | ".join(FEATURES) + " |")
    lines.append("|---" * (len(FEATURES) + 1) + "|")
    lines += ["| " + " | ".join(_md(x) for x in row) + " |" for row in feature_rows(verdicts)]
    lines += ["", "## Implementation x trace set", ""]
    lines.append("| implementation | " + " | ".join(_md(s) for s in sets) + " |")
    lines.append("|---" * (len(sets) + 1) + "|")
    for impl in impls:
        texts = [_cell_text(cells.get((impl, s))) for s in sets]
        lines.append(f"| {_md(impl)} | " + " | ".join(texts) + " |")
    rejected = _rejections(verdicts)
    lines += ["", "## Rejected traces", ""]
    lines += [f"- {_code(tid)}: {_md(reason)}" for tid, reason in rejected] or ["None."]
    failures = [v for v in verdicts if v.verdict != "pass" and v.kind not in REJECTED]
    lines += ["", "## Failures and other non-passing verdicts", ""]
    if not failures:
        lines.append("None.")
    for v in failures:
        lines.append(
            f"- **{_md(v.impl)}** on {_code(v.trace_id)} ({_md(v.generator)}): {_md(v.describe())}"
        )
        if "shrunk" in v.extra:
            lines.append(
                f"  - smallest failing trace: {_code(v.extra['shrunk'])} "
                f"({_md(v.extra['shrunk_ops'])} ops"
                + (f"; {_md(v.extra['shrunk_verdict'])}" if "shrunk_verdict" in v.extra else "")
                + ")"
            )
            text = _shrunk_text(out, v) if out is not None else None
            if text is not None:
                lines += ["", "    ```json", *("    " + t for t in text.splitlines()), "    ```"]
    judged = judged_protocol(verdicts)
    if judged:
        lines += ["", "## Protocol deviations", ""]
        deviations = protocol_deviations(verdicts)
        lines += [
            f"- **{_md(v.impl)}** on {_code(v.trace_id)} ({_md(v.generator)}): "
            f"{_md(v.protocol_detail)}"
            + (f"\n  - smallest trace deviating for the same rule: "
               f"{_code(v.extra['protocol_shrunk'])} ({_md(v.extra['protocol_shrunk_ops'])} ops)"
               if "protocol_shrunk" in v.extra else "")
            for v in deviations
        ] or ["None."]  # fmt: skip
    lines += ["", "## All verdicts", ""]
    if judged:
        lines += ["| implementation | trace | generator | verdict | protocol |",
                  "|---|---|---|---|---|"]  # fmt: skip
    else:
        lines += ["| implementation | trace | generator | verdict |", "|---|---|---|---|"]
    for v in verdicts:
        words = (v.impl, v.trace_id, v.generator, v.describe()) + ((v.protocol,) if judged else ())
        lines.append("| " + " | ".join(_md(c) for c in words) + " |")
    return "\n".join(lines) + "\n"


def _inline_html(text: str) -> str:
    """A note's Markdown inline marks as HTML (`code`, **bold**), everything else escaped."""
    import re

    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def _html(
    verdicts: list[Verdict],
    title: str,
    notes: list[str],
    out: Path,
    subset: frozenset[str] | None = None,
) -> str:
    e = html.escape
    impls, sets, cells = _impls(verdicts), _sets(verdicts), matrix(verdicts)
    head_row, rows = _summary_table(verdicts, subset)
    summary = "".join(
        "<tr>" + "".join(f"<td>{e(str(x))}</td>" for x in row) + "</tr>" for row in rows
    )
    summary_head = "".join(f"<th>{e(h)}</th>" for h in head_row)
    deviations = "".join(
        f"<li><b>{e(v.impl)}</b> on <code>{e(v.trace_id)}</code>: {e(v.protocol_detail)}</li>"
        for v in protocol_deviations(verdicts)
    )
    protocol_section = (
        f"<h2>Protocol deviations</h2><ul>{deviations or '<li>None.</li>'}</ul>"
        if judged_protocol(verdicts) else ""
    )
    coverage = "".join(
        "<tr>" + "".join(f"<td>{e(x)}</td>" for x in row) + "</tr>"
        for row in feature_rows(verdicts)
    )
    feature_head = "".join(f"<th>{e(f)}</th>" for f in FEATURES)
    grid = "".join(
        f"<tr><td>{e(impl)}</td>"
        + "".join(f"<td>{e(_cell_text(cells.get((impl, s))))}</td>" for s in sets)
        + "</tr>"
        for impl in impls
    )
    rejected = "".join(
        f"<li><code>{e(tid)}</code>: {e(reason)}</li>" for tid, reason in _rejections(verdicts)
    )
    items = []
    for v in verdicts:
        if v.verdict == "pass" or v.kind in REJECTED:
            continue
        item = f"<li><b>{e(v.impl)}</b> on <code>{e(v.trace_id)}</code>: {e(v.describe())}"
        if "shrunk" in v.extra:
            item += (
                f"<br>smallest failing trace: <code>{e(v.extra['shrunk'])}</code> "
                f"({e(v.extra['shrunk_ops'])} ops)"
            )
            text = _shrunk_text(out, v)
            if text is not None:
                item += f"<pre>{e(text)}</pre>"
        items.append(item + "</li>")
    png = base64.b64encode(plot_png(verdicts)).decode()
    head = "".join(f"<th>{e(s)}</th>" for s in sets)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
        "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}"
        "td,th{border:1px solid #ccc;padding:2px 8px}table{border-collapse:collapse}"
        "pre{background:#f5f5f5;padding:4px;overflow-x:auto;font-size:80%}"
        # the grid has a column per trace set: narrow cells, names broken, scrolled if still wide
        ".wide{max-width:100%;overflow-x:auto}.grid{font-size:80%}"
        ".grid th,.grid td{padding:2px 4px;word-break:break-word;min-width:3em}"
        "img{max-width:100%}</style>"
        f"</head><body><h1>{e(title)}</h1>"
        + "".join(f"<p>{_inline_html(n)}</p>" for n in [*notes, POLICY_NOTE])
        + f"<table><tr>{summary_head}</tr>{summary}</table>"
        "<h2>Feature coverage: traces skipped for lack of a feature</h2>"
        f"<table><tr><th>implementation</th>{feature_head}</tr>{coverage}</table>"
        f"<h2>Implementation x trace set</h2><div class='wide'><table class='grid'><tr>"
        f"<th>implementation</th>{head}</tr>{grid}</table></div>"
        f"<p><img alt='verdicts per implementation and trace set' "
        f"src='data:image/png;base64,{png}'></p>"
        f"<h2>Rejected traces</h2><ul>{rejected or '<li>None.</li>'}</ul>"
        f"<h2>Non-passing verdicts</h2><ul>{''.join(items) or '<li>None.</li>'}</ul>"
        f"{protocol_section}</body></html>\n"
    )


def write_report(
    out: Path,
    verdicts: list[Verdict],
    title: str,
    notes: list[str],
    subset: frozenset[str] | None = None,
) -> Path:
    """Write `out/report.md` and `out/report.html`; return the Markdown path."""
    out.mkdir(parents=True, exist_ok=True)
    md = markdown(verdicts, title, notes, out, subset)
    (out / "report.md").write_text(md, encoding="utf-8")
    (out / "report.html").write_text(_html(verdicts, title, notes, out, subset), encoding="utf-8")
    return out / "report.md"
