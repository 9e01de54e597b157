"""MkDocs hooks of the docs site (mkdocs.yml `hooks`):

- `on_config`: the nav's "TLA+ modules" section lists every spec/**/*.tla, whose pages
  scripts/docs_gen.py writes at build time (a new module needs no nav edit);
- `on_page_markdown`: a link from a page to a repository file the site renders (a TLA+ module,
  conformance/FORMAT.md, PROTOCOL.md, README.md, trace.schema.json) is pointed at its page, so
  that the Markdown links work both in a checkout and on the site. Any other link that leaves
  docs/ stays as it is and fails the strict build (MkDocs' link validation)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
RENDERED = {
    "conformance/FORMAT.md": "conformance/FORMAT.md",
    "conformance/PROTOCOL.md": "conformance/PROTOCOL.md",
    "conformance/OBSERVATIONS.md": "conformance/OBSERVATIONS.md",
    "conformance/observation.schema.json": "conformance/observation.schema.md",
    "conformance/README.md": "conformance/package-readme.md",
    "conformance/trace.schema.json": "conformance/trace.schema.md",
}


def _site_page(repo_path: str) -> str | None:
    """The site page that renders repository file `repo_path`, if any."""
    if repo_path.startswith("docs/"):
        return repo_path.removeprefix("docs/")
    if repo_path.startswith("spec/") and repo_path.endswith(".tla"):
        return repo_path.removesuffix(".tla") + ".md"
    return RENDERED.get(repo_path)


def _repo_dir(src_uri: str) -> str:
    """Where the page's source lives in the repository: docs/<uri>, or the file a generated
    page renders (conformance/*, spec/**)."""
    if src_uri.startswith(("conformance/", "spec/")):
        return posixpath.dirname(src_uri)
    return posixpath.dirname("docs/" + src_uri)


def on_config(config: Any) -> Any:
    by_system: dict[str, list[dict[str, str]]] = {}
    for p in sorted((ROOT / "spec").rglob("*.tla")):
        page = p.relative_to(ROOT).with_suffix(".md").as_posix()
        system = p.parent.relative_to(ROOT / "spec").as_posix()
        by_system.setdefault(system, []).append({p.stem: page})
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and "TLA+ modules" in entry:
            entry["TLA+ modules"] = [
                "spec/index.md", *({system: pages} for system, pages in by_system.items())
            ]
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    src = page.file.src_uri
    here = posixpath.dirname(src)

    def fix(m: re.Match[str]) -> str:
        target = m.group(2)
        if "://" in target or target.startswith(("mailto:", "/")):
            return m.group(0)
        repo_path = posixpath.normpath(posixpath.join(_repo_dir(src), target))
        site = _site_page(repo_path)
        if site is None or files.get_file_from_path(site) is None:
            return m.group(0)
        rel = posixpath.relpath(site, here or ".")
        return f"{m.group(1)}{rel}{m.group(3) or ''}{m.group(4)}"

    return LINK.sub(fix, markdown)
