"""The layout of reference/ (docs/layout.md): one package per paper plus shared ones; the import
graph has no cycles and no shared package imports a system package; every system in the registry
implements the System interface and declares its message types and features."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.system import FEATURES, System

ROOT = Path(__file__).resolve().parent.parent / "reference"
SHARED = ("common", "sim", "overlay")


def _graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of `root` (a `reference` folder) it imports."""

    def name(path: Path) -> str:
        rel = path.relative_to(root.parent).with_suffix("")
        return ".".join(("pubsub_spec", *(rel.parts[:-1] if rel.name == "__init__" else rel.parts)))

    mods = {name(p): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            deps |= {t if t in mods else t.rsplit(".", 1)[0] for t in targets}
        graph[mod] = {d for d in deps if d in mods and d != mod}
    return graph


def _package(module: str) -> str:
    """The package of reference/ a module belongs to ('' for top-level modules)."""
    parts = module.split(".")  # pubsub_spec.reference.PACKAGE.module
    return parts[2] if len(parts) > 3 else ""


def shared_violations(root: Path) -> list[str]:
    graph = _graph(root)
    return sorted(
        f"{mod} imports {dep}"
        for mod, deps in graph.items()
        if _package(mod) in SHARED
        for dep in deps
        if _package(dep) not in SHARED
    )


def cycles(root: Path) -> list[list[str]]:
    graph = _graph(root)
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                found.append([*path[path.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[node] = 2

    for mod in sorted(graph):
        if mod not in state:
            visit(mod, [mod])
    return found


def test_import_graph_has_no_cycles() -> None:
    assert cycles(ROOT) == []


def test_shared_packages_import_no_system_package() -> None:
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert set(SHARED) < packages and {"thesis", "lbdd"} <= packages
    assert shared_violations(ROOT) == []


def test_the_checks_catch_a_forbidden_import_and_a_cycle(tmp_path: Path) -> None:
    root = tmp_path / "reference"
    for pkg, body in (
        ("sim", "from pubsub_spec.reference.thesis.system import X\n"),
        ("thesis", "from pubsub_spec.reference.sim.system import Y\n"),
    ):
        (root / pkg).mkdir(parents=True)
        (root / pkg / "__init__.py").write_text("")
        (root / pkg / "system.py").write_text(body)
    (root / "__init__.py").write_text("")
    sim, thesis = "pubsub_spec.reference.sim.system", "pubsub_spec.reference.thesis.system"
    assert shared_violations(root) == [f"{sim} imports {thesis}"]
    assert cycles(root) == [[sim, thesis, sim]]


TOP = ("reference", "properties", "conformance")


def outside_namespace(files: list[Path]) -> list[str]:
    """Imports of a top-level folder by its bare name (`from reference.x import y`): the project
    has one import namespace, `pubsub_spec` (docs/layout.md, "One namespace")."""
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found += [f"{path.name}:{node.lineno} {n}" for n in names if n.split(".")[0] in TOP]
    return found


def test_one_import_namespace(tmp_path: Path) -> None:
    project = ROOT.parent
    folders = (*TOP, "pubsub_spec", "tests", "benchmarks", "scripts")
    files = [p for d in folders for p in (project / d).rglob("*.py")]
    assert len(files) > 150 and outside_namespace(files) == []
    planted = tmp_path / "planted.py"
    planted.write_text("import os\nfrom conformance.traceio import read_trace\n")
    assert outside_namespace([planted]) == ["planted.py:2 conformance.traceio"]
    for top in TOP:  # the namespace reaches the top folders through pubsub_spec/<folder>
        assert (project / "pubsub_spec" / top).resolve() == project / top


def test_every_registered_system_declares_itself() -> None:
    assert "thesis" in SYSTEMS
    builtins: set[str] = set()
    for info in SYSTEMS.values():
        assert info.features <= set(FEATURES) | {"advertisements"}
        declared = [t.name for t in info.message_types]
        assert declared and len(set(declared)) == len(declared)
        names = {v.builtin for v in info.variants}
        assert info.default_variant in names and not names & builtins
        builtins |= names


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_variant_makes_a_system(name: str) -> None:
    from pubsub_spec.reference.common.model import Attribute, Schema
    from pubsub_spec.reference.common.ops import Trace

    trace = Trace((Schema("s", (Attribute("a", "int", 0, 9),)),), (), initial_nodes=3)
    for v in SYSTEMS[name].variants:
        system = v.make(trace)
        assert isinstance(system, System)
        assert system.peer_count() >= 1
