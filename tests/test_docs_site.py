"""The docs as a site: `mkdocs build --strict` succeeds with every page of docs/, the
format and protocol documents, a highlighted page per TLA+ module linked from the invariant
pages, the z3 lemma page, the conformance report, the API reference and the search index; and
the same validation settings fail a build on a broken link, a missing anchor or a page left out
of the navigation."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true")


def mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
         "-d", str(site)],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    r = mkdocs(ROOT / "mkdocs.yml", out)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def test_every_docs_page_and_tla_module_is_a_page(site: Path) -> None:
    for md in (ROOT / "docs").rglob("*.md"):
        rel = md.relative_to(ROOT / "docs").with_suffix("")
        target = rel.parent if rel.name in ("index", "README") else rel
        assert (site / target / "index.html").exists(), md
    for tla in (ROOT / "spec").rglob("*.tla"):
        html = page(site, tla.relative_to(ROOT).with_suffix("").as_posix())
        assert f'MODULE {tla.stem}' in html and 'class="highlight"' in html
        assert '<span class="k">EXTENDS</span>' in html or "EXTENDS" not in tla.read_text()
    for doc in ("conformance/FORMAT", "conformance/PROTOCOL", "z3-lemmas", "ci", "implementers"):
        assert "<h1" in page(site, doc)
    assert "<h1" in page(site, "conformance/package-readme")


def first_heading(md: Path) -> str:
    """The text of the page's first `# ` heading, as the site shows it (no backticks)."""
    line = next(x for x in md.read_text().splitlines() if x.startswith("# "))
    return html.escape(line[2:].replace("`", "").strip(), quote=False)


def test_no_generated_page_takes_the_place_of_a_docs_page(site: Path) -> None:
    """Each page of docs/ is served at its own URL with its own content: a generated page of the
    same URL (conformance/README.md was one: MkDocs makes a README its folder's index, which is
    conformance/index.html, the URL of docs/conformance.md) would silently replace it."""
    for md in (ROOT / "docs").rglob("*.md"):
        rel = md.relative_to(ROOT / "docs").with_suffix("")
        target = rel.parent if rel.name in ("index", "README") else rel
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", page(site, target.as_posix()), re.S)
        assert h1 is not None, md
        shown = re.sub(r"<[^>]+>|&para;|¶", "", h1[1]).strip()
        assert shown == first_heading(md), (md, shown)
    assert (site / "search" / "search_index.json").stat().st_size > 10_000


def test_invariant_pages_link_their_tla_modules(site: Path) -> None:
    html = page(site, "invariants/single-delivery")
    assert 'href="../../spec/thesis/CutoffRemap/"' in html
    assert 'href="../../spec/thesis/TwoDTree/"' in page(site, "invariants/no-missed-matches")


def test_report_and_api_reference_are_built_from_the_code(site: Path) -> None:
    report = page(site, "conformance-report")
    assert re.search(r"faulty\.py --mode drop</td>\s*<td>fail", report), report[:2000]
    assert "smallest failing trace" in report and (site / "report.png").stat().st_size > 1000
    api = page(site, "api/common")
    assert "reference.common.model" in api and "expected_deliveries" in api


def test_the_validation_settings_fail_a_broken_link(tmp_path: Path) -> None:
    text = (ROOT / "mkdocs.yml").read_text()
    validation = re.search(r"^validation:.*?(?=^\S)", text, re.S | re.M)
    assert validation is not None
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[ok](other.md)\n")
    (docs / "other.md").write_text("# Other\n\n## Part\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: t\ndocs_dir: docs\n{validation.group(0)}nav:\n  - index.md\n"
                      "  - other.md\n")  # fmt: skip
    assert mkdocs(config, tmp_path / "s").returncode == 0
    for broken in ("[gone](missing.md)", "[anchor](other.md#no-such-part)"):
        (docs / "index.md").write_text(f"# Home\n\n{broken}\n")
        r = mkdocs(config, tmp_path / "s")
        assert r.returncode != 0 and "strict" in r.stdout + r.stderr, broken
    (docs / "index.md").write_text("# Home\n")
    (docs / "stray.md").write_text("# Not in the nav\n")
    r = mkdocs(config, tmp_path / "s")
    assert r.returncode != 0 and "stray.md" in r.stdout + r.stderr
