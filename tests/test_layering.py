"""The layers of the project (docs/layout.md, "Layers"): no module imports from a layer above its
own, and each top-level folder is importable under one name only, `pubsub_spec.<folder>`.

Layers, lowest first: the reference (`reference/`; `spec/` is data beside it), the conformance
suite (`conformance/`), the invariants as code (`properties/`: they validate traces the
conformance generators make), the command line (`pubsub_spec/`'s own modules); `benchmarks/`,
`scripts/` and `tests/` sit on top and may import anything. The bare `pubsub_spec` package (a
docstring) belongs to no layer."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
LAYERS = ("reference", "conformance", "properties", "cli", "top")
FOLDERS = {  # top-level folder -> its layer
    "reference": "reference",
    "spec": "reference",
    "conformance": "conformance",
    "properties": "properties",
    "pubsub_spec": "cli",
    "benchmarks": "top",
    "scripts": "top",
    "tests": "top",
}
PACKAGE = ("reference", "spec", "conformance", "properties")  # pubsub_spec/<folder> symlinks


def layer_of(module: str) -> str | None:
    """The layer of an imported module name, None for a module outside the project (or the
    bare `pubsub_spec` package). `pubsub_spec.reference.x` is the reference, and so on."""
    parts = module.split(".")
    if parts[0] == "pubsub_spec":
        if len(parts) == 1:
            return None
        return FOLDERS[parts[1]] if parts[1] in PACKAGE else "cli"
    return FOLDERS.get(parts[0])


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of a module, at any depth (a function's lazy
    import counts: it runs when the function does)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def upward_imports(files: dict[str, Path]) -> list[str]:
    """`path:line imports module (layer A above layer B)` for every import of a module from a
    layer above the importing file's; `files` maps a path relative to the project to the file
    (its first part names the folder, hence the layer)."""
    found: list[str] = []
    for rel, path in sorted(files.items()):
        own = FOLDERS[rel.split("/")[0]]
        for line, module in imported(ast.parse(path.read_text("utf-8"), rel)):
            other = layer_of(module)
            if other is not None and LAYERS.index(other) > LAYERS.index(own):
                found.append(f"{rel}:{line} imports {module} ({other} is above {own})")
    return found


def project_files() -> dict[str, Path]:
    """Every Python file of the project by its path in the repository; pubsub_spec/'s symlinked
    folders are read once, under their own top-level name."""
    files: dict[str, Path] = {}
    for folder in FOLDERS:
        for path in (PROJECT / folder).rglob("*.py"):
            rel = path.relative_to(PROJECT)
            if rel.parts[0] == "pubsub_spec" and rel.parts[1] in PACKAGE:
                continue
            files[rel.as_posix()] = path
    return files


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    files = project_files()
    assert len(files) > 150
    assert {"reference", "conformance", "properties", "pubsub_spec"} <= {
        rel.split("/")[0] for rel in files
    }
    assert upward_imports(files) == []


def test_the_checker_catches_an_upward_import(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import json\n"
        "from pubsub_spec.reference.common.model import Event\n"
        "def f() -> None:\n"
        "    from pubsub_spec.ci import EPILOG\n"
        "    import pubsub_spec.properties.tla\n"
    )
    assert upward_imports({"conformance/planted.py": planted}) == [
        "conformance/planted.py:4 imports pubsub_spec.ci (cli is above conformance)",
        "conformance/planted.py:5 imports pubsub_spec.properties.tla "
        "(properties is above conformance)",
    ]
    assert upward_imports({"reference/x/planted.py": planted}) == [
        "reference/x/planted.py:4 imports pubsub_spec.ci (cli is above reference)",
        "reference/x/planted.py:5 imports pubsub_spec.properties.tla "
        "(properties is above reference)",
    ]
    assert upward_imports({"tests/planted.py": planted}) == []  # the top imports anything
    assert layer_of("pubsub_spec") is None and layer_of("json") is None
    assert layer_of("pubsub_spec.spec") == "reference" and layer_of("benchmarks.x") == "top"


@pytest.mark.parametrize("folder", ["reference", "conformance", "properties", "spec"])
def test_a_top_level_folder_is_no_package_of_its_own(folder: str) -> None:
    """From the repository root `import reference` would find the folder itself; it fails and
    names the one import name, while `pubsub_spec.reference` imports."""
    code = (
        "import importlib, sys\n"
        f"m = importlib.import_module('pubsub_spec.{folder}')\n"
        f"assert m.__name__ == 'pubsub_spec.{folder}'\n"
        "try:\n"
        f"    importlib.import_module('{folder}')\n"
        "except ImportError as e:\n"
        "    print(e)\n"
        "else:\n"
        "    sys.exit('imported')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert f"import pubsub_spec.{folder}, not {folder}" in run.stdout


def test_a_module_below_a_top_level_folder_fails_the_same_way() -> None:
    code = "from reference.common.model import Event"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert "ImportError: import pubsub_spec.reference, not reference" in run.stderr
