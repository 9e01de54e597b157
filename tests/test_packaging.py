"""The installed package (docs/layout.md "One namespace"): a wheel and an sdist built
with `python -m build`, the wheel installed in a fresh virtualenv outside the checkout, and
there, with no access to the checkout:

- nothing but `pubsub_spec` is installed at top level;
- `pubsub-spec check` runs every row, TLA+ included (this is where CI model-checks every model
  of spec/manifest.json, found as package data through importlib.resources);
- the implementer's commands: `vectors export`, then `verify` of the Go example built from the
  sources the wheel ships;
- `conform` on the embedded local Spark, with the Go example beside the built-ins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from pubsub_spec.properties.tla import load_manifest, tla_binary
from tests.test_implementer_kit import tool

ROOT = Path(__file__).resolve().parent.parent
TOP_FOLDERS = ("reference", "properties", "conformance", "spec")

pytestmark = [pytest.mark.slow, pytest.mark.tla, pytest.mark.spark]


@dataclass(frozen=True)
class Installed:
    dist: Path  # the wheel and the sdist
    venv: Path
    work: Path  # the working directory of every command: outside the checkout

    def run(self, *args: str, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return subprocess.run(  # generous safety net only: the commands bound their own work
            list(args), cwd=self.work, env=env, capture_output=True, text=True, timeout=timeout
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("installed")
    assert not base.resolve().is_relative_to(ROOT)
    dist, venv, work = base / "dist", base / "venv", base / "work"
    work.mkdir()
    build = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    [wheel] = dist.glob("*.whl")
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", str(wheel)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-3000:]
    return Installed(dist, venv, work)


def test_the_wheel_installs_one_namespace_with_its_data(installed: Installed) -> None:
    [wheel] = installed.dist.glob("*.whl")
    [sdist] = installed.dist.glob("*.tar.gz")
    assert sdist.name.startswith("pubsub_spec-")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"pubsub_spec"}, tops
    for top in TOP_FOLDERS:
        assert any(n.startswith(f"pubsub_spec/{top}/") for n in names), top
    for data in ("spec/manifest.json", "spec/thesis/TwoDTree.tla", "conformance/FORMAT.md",
                 "conformance/vectors/index.json", "conformance/trace.schema.json",
                 "conformance/examples/go-bruteforce/main.go"):  # fmt: skip
        assert f"pubsub_spec/{data}" in names, data
    probe = installed.run(
        "python", "-c",
        "import importlib.util as u, pubsub_spec.properties.tla as t; "
        "print(t.SPEC); print([m for m in ('reference', 'properties', 'conformance') "
        "if u.find_spec(m)])",
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    spec, missing = probe.stdout.splitlines()
    assert "site-packages/pubsub_spec/spec" in spec and missing == "[]"


def test_check_runs_every_row_from_the_installed_package(installed: Installed) -> None:
    try:
        tla_binary()
        skip: list[str] = []
    except FileNotFoundError:
        if os.environ.get("CI"):
            raise
        skip = ["--skip", "tla"]
    report = installed.work / "check.json"
    done = installed.run("pubsub-spec", "check", "--json", str(report), "--examples", "10", *skip)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-3000:]
    rows = json.loads(report.read_text())["rows"]
    assert rows and all(r["ok"] for r in rows)
    assert {r["section"] for r in rows} >= {"z3", "hypothesis"}
    for invariant in (
        "one-way dissemination",
        "no missed matches under growth-only trees",
        "single delivery with cut-off remapping",
        "bounded tree depth",
        "Kyra: zones, trees and filters",
        "Tam: intervals, digests, keys",
    ):
        assert any(r["invariant"] == invariant for r in rows), invariant
    if not skip:  # every model of the manifest; a row is ok only near the recorded state count
        tla = {r["name"]: r for r in rows if r["checker"] == "TLA+ (tla-checker)"}
        for m in load_manifest():
            assert m.name in tla, m.name
            if m.expect == "pass":  # as tests/test_tla.py asserts of the cheaper models
                assert tla[m.name]["explored"] >= 10_000, m.name


def test_the_implementers_commands_run_from_the_installed_package(installed: Installed) -> None:
    go = tool("go")
    kit = installed.work / "kit"
    export = installed.run("pubsub-spec", "vectors", "export", str(kit))
    assert export.returncode == 0, export.stderr
    [tarball] = kit.glob("*.tar.gz")
    where = installed.run(
        "python", "-c",
        "import importlib.resources as r; "
        "print(r.files('pubsub_spec.conformance.examples') / 'go-bruteforce')",
    )  # fmt: skip
    source = Path(where.stdout.strip())
    assert source.is_relative_to(installed.venv), source  # the wheel's copy, not the checkout's
    binary = installed.work / "go-bruteforce"
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=source, check=True, env=env,
                   capture_output=True)  # fmt: skip
    junit = installed.work / "verify.xml"
    done = installed.run("pubsub-spec", "verify", "--impl", str(binary), "--junit", str(junit),
                         str(tarball))  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 rejected" in done.stdout and junit.read_text().startswith("<?xml")


def test_conform_runs_from_the_installed_package(installed: Installed) -> None:
    go = tool("go")
    binary = installed.work / "go-conform"
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    subprocess.run([go, "build", "-o", str(binary), "."],
                   cwd=ROOT / "conformance" / "examples" / "go-bruteforce", check=True, env=env,
                   capture_output=True)  # fmt: skip
    out, summary = installed.work / "conform", installed.work / "conform.json"
    done = installed.run(
        "pubsub-spec", "conform", "--out", str(out), "--profile", "tiny", "--count", "1",
        "--generators", "mixed", "--impls", "reference,oracle-python",
        "--impl", str(binary), "--json", str(summary),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (out / "report.md").is_file()
    verdicts = json.loads(summary.read_text())
    assert verdicts["exit_code"] == 0, verdicts
