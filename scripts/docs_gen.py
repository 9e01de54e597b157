"""Pages of the docs site made at build time (mkdocs-gen-files; mkdocs.yml): every TLA+ module
of spec/ highlighted, the conformance format and protocol documents, the API reference of the
typed code (mkdocstrings) and a conformance report run on the tiny vectors without Spark.
Nothing is written into the repository: the pages exist only in the build."""

from __future__ import annotations

import html
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import mkdocs_gen_files
from pygments import highlight  # type: ignore[import-untyped]
from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
from pygments.lexer import RegexLexer, bygroups, words  # type: ignore[import-untyped]
from pygments.token import (  # type: ignore[import-untyped]
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class TLAPlusLexer(RegexLexer):  # type: ignore[misc]
    """TLA+ for Pygments, which has no lexer of its own: comments (nested `(* *)` and `\\*`),
    module rules, keywords, the standard operators, strings, numbers."""

    name = "TLA+"
    aliases: ClassVar[list[str]] = ["tla", "tlaplus"]
    filenames: ClassVar[list[str]] = ["*.tla"]
    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            (r"\(\*", Comment.Multiline, "comment"),
            (r"\\\*.*?$", Comment.Single),
            (r"-{4,}\s*MODULE\s+\w+\s*-{4,}", Keyword.Namespace),
            (r"={4,}", Keyword.Namespace),
            (r"-{4,}", Keyword.Namespace),
            (
                words(
                    (
                        "EXTENDS", "CONSTANT", "CONSTANTS", "VARIABLE", "VARIABLES", "ASSUME",
                        "THEOREM", "LEMMA", "LET", "IN", "IF", "THEN", "ELSE", "CASE", "OTHER",
                        "CHOOSE", "EXCEPT", "UNCHANGED", "ENABLED", "DOMAIN", "SUBSET", "UNION",
                        "LOCAL", "INSTANCE", "WITH", "RECURSIVE", "LAMBDA", "SF_", "WF_",
                    ),
                    suffix=r"\b",
                ),
                Keyword,
            ),
            (words(("TRUE", "FALSE", "BOOLEAN", "Nat", "Int", "Seq"), suffix=r"\b"),
             Keyword.Constant),
            (r"\\(A|E|in|notin|cup|cap|subseteq|union|intersect|X|times|div|o|leq|geq)\b",
             Operator.Word),
            (r"(/\\|\\/|=>|<=>|~|#|==|\[\]|<>|->|\|->|<<|>>|\.\.|:=|'|@|\\|\+|-|\*|/|%|=|<|>)",
             Operator),
            (r'"(\\\\|\\"|[^"])*"', String),
            (r"\d+", Number.Integer),
            (r"([A-Za-z_]\w*)(\s*)(==)", bygroups(Name.Function, Text, Operator)),
            (r"[A-Za-z_]\w*", Name),
            (r"[\[\](){},:;!.]", Punctuation),
            (r"\s+", Text),
        ],
        "comment": [
            (r"[^(*)]+", Comment.Multiline),
            (r"\(\*", Comment.Multiline, "#push"),
            (r"\*\)", Comment.Multiline, "#pop"),
            (r"[(*)]", Comment.Multiline),
        ],
    }


def tla_pages() -> list[str]:
    """spec/<system>/<Module>.md for every spec/**/*.tla: the module highlighted, its models
    (.cfg) and the manifest rows that run it."""
    manifest = json.loads((ROOT / "spec" / "manifest.json").read_text())["models"]
    # <pre><code> as Material styles code blocks; no line-number table (it misaligns)
    fmt = HtmlFormatter(cssclass="highlight", wrapcode=True)
    written = []
    for tla in sorted((ROOT / "spec").rglob("*.tla")):
        rel = tla.relative_to(ROOT).with_suffix(".md").as_posix()
        folder = tla.parent
        stem = tla.stem
        rows = [m for m in manifest if Path(m["module"]).stem == stem]
        lines = ["---", "hide: [toc]", "---", "", f"# {stem}", "",
                 f"`{tla.relative_to(ROOT).as_posix()}`", ""]  # fmt: skip
        if rows:
            lines += ["| model | invariant | expected | states |", "|---|---|---|---|"]
            lines += [
                f"| `{m['name']}` | {m['invariant']} | "
                f"{'holds' if m['expect'] == 'pass' else 'violates ' + m['expect']} | "
                f"{m['states']:,} |"
                for m in rows
            ]
            lines.append("")
        if (folder / f"MC{stem}.tla").exists():
            lines += [f"Model-checked through [MC{stem}](MC{stem}.md).", ""]
        cfgs = sorted(folder.glob(f"{stem}*.cfg"))
        lines += ['<div class="tla-module" markdown="0">', highlight(tla.read_text(), TLAPlusLexer(), fmt), "</div>", ""]  # noqa: E501
        for cfg in cfgs:
            lines += [f"## {cfg.name}", "", "```text", cfg.read_text().rstrip(), "```", ""]
        with mkdocs_gen_files.open(rel, "w") as f:
            f.write("\n".join(lines))
        written.append(rel)
    index = [
        "# TLA+ modules", "",
        "Every module of `spec/`, with its models and the rows of `spec/manifest.json` that run "
        "it (`pubsub-spec check`, [TLA+ models](../tla.md)).", "",
    ]  # fmt: skip
    index += [f"- [{Path(p).stem}]({Path(p).relative_to('spec').as_posix()}) "
              f"(`{Path(p).with_suffix('.tla').as_posix()}`)" for p in written]  # fmt: skip
    with mkdocs_gen_files.open("spec/index.md", "w") as f:
        f.write("\n".join(index) + "\n")
    return written


def conformance_pages() -> None:
    """The format and protocol documents as pages of their own (their links into the repository
    are rewritten by scripts/docs_hooks.py)."""
    # README.md would become conformance/index.html, the URL of docs/conformance.md (MkDocs
    # makes a README the index of its folder), and silently replace that page
    for name, page in (("FORMAT.md", "FORMAT.md"), ("PROTOCOL.md", "PROTOCOL.md"),
                       ("OBSERVATIONS.md", "OBSERVATIONS.md"),
                       ("README.md", "package-readme.md")):  # fmt: skip
        with mkdocs_gen_files.open(f"conformance/{page}", "w") as f:
            f.write((ROOT / "conformance" / name).read_text())
    with mkdocs_gen_files.open("conformance/trace.schema.md", "w") as f:
        schema = (ROOT / "conformance" / "trace.schema.json").read_text()
        f.write(f"# trace.schema.json\n\nThe JSON Schema of a trace line (FORMAT.md).\n\n"
                f"```json\n{schema.rstrip()}\n```\n")  # fmt: skip
    with mkdocs_gen_files.open("conformance/observation.schema.md", "w") as f:
        schema = (ROOT / "conformance" / "observation.schema.json").read_text()
        f.write(f"# observation.schema.json\n\nThe JSON Schema of an observation line "
                f"(OBSERVATIONS.md, process protocol version 2).\n\n"
                f"```json\n{schema.rstrip()}\n```\n")  # fmt: skip


API = {  # page -> (title, modules); every module documented from its types and docstrings
    "common": ("Shared model", "pubsub_spec.reference.common"),
    "sim": ("Simulation", "pubsub_spec.reference.sim"),
    "overlay": ("Overlays", "pubsub_spec.reference.overlay"),
    "thesis": ("Thesis system", "pubsub_spec.reference.thesis"),
    "conformance": ("Conformance", "pubsub_spec.conformance"),
    "cli": ("Command line", "pubsub_spec"),
}
SKIP_MODULES = {f"pubsub_spec.conformance.{m}" for m in (
    "spark_generate", "spark_oracle", "cluster", "parquet", "spark_session")}  # fmt: skip


# subpackages documented module by module after their package's own modules, overview first
SUBPACKAGES = {"conformance": ("scale",)}


def api_pages() -> None:
    for page, (title, package) in API.items():
        folder = ROOT / package.replace(".", "/")
        modules = sorted(
            f"{package}.{p.stem}"
            for p in folder.glob("*.py")
            if p.stem != "__init__" and f"{package}.{p.stem}" not in SKIP_MODULES
        )
        for sub in SUBPACKAGES.get(page, ()):
            modules.append(f"{package}.{sub}")
            modules += sorted(
                f"{package}.{sub}.{p.stem}"
                for p in (folder / sub).glob("*.py")
                if p.stem != "__init__"
            )
        lines = [f"# {title}: `{package}`", ""]
        for mod in modules:
            lines += [f"::: {mod}", ""]
        with mkdocs_gen_files.open(f"api/{page}.md", "w") as f:
            f.write("\n".join(lines))


def report_page() -> None:
    """A conformance report as `pubsub-spec verify` writes it: built-ins and the faulty example
    (drop mode: missing deliveries, shrunk) on the tiny vectors, no Spark."""
    from pubsub_spec.conformance.report import markdown, plot_png
    from pubsub_spec.conformance.run_vectors import VECTORS, list_traces
    from pubsub_spec.conformance.runner import run_traces, shrink_failures

    paths = [p for p in list_traces(VECTORS) if "-tiny-" in p.name]
    faulty = f"cmd:{sys.executable} {ROOT / 'conformance/examples/faulty.py'} --mode drop"
    impls = ["reference", "kyra", "tam", "oracle-python", faulty]
    with tempfile.TemporaryDirectory() as tmp:
        verdicts = run_traces(impls[:-1], paths, None, 5.0, 60.0)
        # the faulty program on one trace, shrunk with a small budget (each try starts it)
        bad = run_traces([faulty], paths[:1], None, 5.0, 60.0)
        verdicts += shrink_failures(bad, paths[:1], Path(tmp), op_timeout=2.0, budget=12)
        text = markdown(verdicts, "Conformance report", [
            "Built at documentation time from the tiny vectors of `conformance/vectors/`, "
            "without Spark, as `pubsub-spec verify` runs them: three built-in systems, the "
            "Python oracle and the faulty example in `drop` mode (it must fail, and does).",
        ], Path(tmp))  # fmt: skip
    for long, short in ((sys.executable, "python3"), (f"{ROOT}/", "")):
        text = text.replace(html.escape(long), short).replace(long, short)
    text = "---\nhide: [toc]\n---\n\n" + text
    text += "\n![verdicts per implementation and trace set](report.png)\n"
    with mkdocs_gen_files.open("conformance-report.md", "w") as f:
        f.write(text)
    with mkdocs_gen_files.open("report.png", "wb") as f:
        f.write(plot_png(verdicts))


tla_pages()
conformance_pages()
api_pages()
report_page()
