"""docs/layout.md, "Adding a system", exercised: a toy system (tests/toy_system.py) registered
through its contract alone shows in `pubsub-spec systems`, in `check` and in `conform`, and is
gone once unregistered. And the built-in contracts cover what they must: every registered
system, every TLA+ model of the manifest, every figure id."""

from __future__ import annotations

import fnmatch
import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pubsub_spec.cli import main
from pubsub_spec.properties.contract import contract_of, contracts, resolve
from pubsub_spec.properties.tla import load_manifest
from pubsub_spec.reference.registry import PLUGINS_ENV, SYSTEMS
from tests import toy_system

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def toy() -> Iterator[None]:
    toy_system.register()
    try:
        yield
    finally:
        toy_system.unregister()
    assert "toy" not in SYSTEMS and all(c.family != "toy" for c in contracts())


def test_the_toy_is_listed_by_systems(toy: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    assert "toy: a central brute-force matcher" in out
    assert contract_of("toy").family == "toy"


def test_the_toy_rows_run_in_check(toy: None, capsys: pytest.CaptureFixture[str]) -> None:
    # a section runs all its rows before --only selects: few examples keep the others short
    assert main(["check", "--only", "hypothesis:*toy*", "--examples", "5"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "toy:" in line]
    assert len(lines) == 2 and all("PASS" in line for line in lines), out
    assert "rejected:" in next(line for line in lines if "mutant forgetful" in line)
    assert "2 passed, 0 failed" in out


def test_the_toy_runs_in_conform(tmp_path: Path) -> None:
    """The cheapest conform: one tiny trace of one generator, the toy and the Python oracle,
    in a process that registers the toy through PUBSUB_SPEC_SYSTEMS (so do its Spark
    executors, which inherit the variable)."""
    from pubsub_spec.ci import java_problem

    if java_problem() is not None:
        pytest.skip("no Java for Spark")
    env = dict(os.environ, **{PLUGINS_ENV: "tests.toy_plugin"})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    cmd = [
        sys.executable, "-m", "pubsub_spec.cli", "conform", "--out", str(tmp_path),
        "--count", "1", "--profile", "tiny", "--generators", "uniform,partial-lenient",
        "--impls", "toy,oracle-python", "--no-shrink",
    ]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    md = (tmp_path / "report.md").read_text()
    assert "| toy | pass |" in md and "| oracle-python | pass |" in md, md[:3000]


# -- the built-in contracts ------------------------------------------------------------------
def test_every_registered_system_has_one_contract() -> None:
    for name in SYSTEMS:
        assert sum(name in c.systems for c in contracts()) == 1, name
    assert {s for c in contracts() for s in c.systems} == set(SYSTEMS)


def test_every_manifest_model_is_declared_by_one_contract() -> None:
    for m in load_manifest():
        owners = [
            c.family for c in contracts() if any(fnmatch.fnmatch(m.name, g) for g in c.tla_models)
        ]
        assert len(owners) == 1, (m.name, owners)


def test_what_the_contracts_name_exists() -> None:
    from pubsub_spec.conformance.generators import GENERATORS

    ids = [i for c in contracts() for f in c.figures for i in f.ids]
    assert len(ids) == len(set(ids))
    for c in contracts():
        assert c.z3 or c.hypothesis or c.tla, c.family
        for module in (*c.abstraction_maps, *c.mutants, *c.workloads):
            importlib.import_module(module)
        assert set(c.generators) <= set(GENERATORS), c.family
        for bench in c.benchmarks:
            assert (ROOT / "benchmarks" / f"{bench}.py").is_file(), bench
        for f in c.figures:
            assert bool(f.writer) != bool(f.benchmark), f
            if f.writer:
                assert callable(resolve(f.writer))
            else:
                assert f.benchmark in c.benchmarks
