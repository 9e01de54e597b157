"""The implementer's kit: `pubsub-spec vectors export` writes a reproducible, versioned
release tarball of the corpus with its index, FORMAT.md, PROTOCOL.md and schema;
`pubsub-spec verify` runs a program on it without Spark; the Go and Rust examples build and pass
the whole corpus (skipped only where the toolchain is absent locally, never in CI)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from pubsub_spec.cli import main
from pubsub_spec.conformance.run_vectors import VECTORS

EXAMPLES = Path(__file__).resolve().parent.parent / "conformance" / "examples"


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kit")
    assert main(["vectors", "export", str(out), "--version", "9.9.9"]) == 0
    [tarball] = out.glob("*.tar.gz")
    return tarball


def tool(name: str) -> str:
    found = shutil.which(name) or (
        str(Path.home() / ".cargo" / "bin" / name)
        if (Path.home() / ".cargo" / "bin" / name).exists()
        else None
    )
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is missing on the CI machine: the example cannot be built")
        pytest.skip(f"{name} is not installed here")
    return found


def test_export_is_a_complete_reproducible_release(release: Path, tmp_path: Path) -> None:
    assert release.name == "pubsub-conformance-vectors-9.9.9.tar.gz"
    assert main(["vectors", "export", str(tmp_path), "--version", "9.9.9"]) == 0
    assert (tmp_path / release.name).read_bytes() == release.read_bytes()  # byte for byte
    digest = hashlib.sha256(release.read_bytes()).hexdigest()
    assert (tmp_path / f"{release.name}.sha256").read_text().split()[0] == digest
    with tarfile.open(release) as tar:
        files = {
            m.name.removeprefix("pubsub-conformance-vectors-9.9.9/"): tar.extractfile(m)
            for m in tar.getmembers()
        }
        content = {k: f.read() for k, f in files.items() if f is not None}
    index = json.loads(content["vectors/index.json"])
    for entry in index:
        assert content[f"vectors/{entry['trace']}"] == (VECTORS / entry["trace"]).read_bytes()
        assert f"vectors/{entry['expected']}" in content
    for doc in ("FORMAT.md", "PROTOCOL.md", "trace.schema.json", "README.md", "OBSERVATIONS.md",
                "observation.schema.json"):  # fmt: skip
        assert content[doc]
    manifest = json.loads(content["RELEASE.json"])
    assert manifest["version"] == "9.9.9" and manifest["traces"] == len(index)
    assert 2 in manifest["trace_format_versions"] and manifest["protocol_version"] == 2
    assert manifest["files"] == {
        k: hashlib.sha256(v).hexdigest() for k, v in content.items() if k != "RELEASE.json"
    }


def test_verify_rejects_a_tarball_that_is_not_a_release(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.tar.gz"
    with tarfile.open(bogus, "w:gz") as tar:
        tar.add(__file__, arcname="x/readme.txt")
    assert main(["verify", "--builtin", "oracle-python", str(bogus)]) == 2
    (tmp_path / "junk.tgz").write_bytes(b"not a tarball")
    assert main(["verify", "--builtin", "oracle-python", str(tmp_path / "junk.tgz")]) == 2


def _verify(binary: str, release: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--impl", binary, str(release)])
    out = capsys.readouterr().out
    total = len(json.loads((VECTORS / "index.json").read_text()))
    assert code == 0, out
    assert f"pass ({total}/{total} traces pass, 0 rejected" in out, out


def test_go_example_passes_the_released_vectors(
    release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    go = tool("go")
    binary = tmp_path / "go-bruteforce"
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=EXAMPLES / "go-bruteforce",
                   check=True, env=env, capture_output=True)  # fmt: skip
    _verify(str(binary), release, capsys)


def test_rust_example_passes_the_released_vectors(
    release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cargo = tool("cargo")
    target = tmp_path / "target"
    crate = EXAMPLES / "rust-bruteforce"
    # its own unit tests (JSON numbers at the format's limits), then the build; no network
    subprocess.run([cargo, "test", "--offline", "--quiet", "--target-dir", str(target)],
                   cwd=crate, check=True, capture_output=True)  # fmt: skip
    subprocess.run([cargo, "build", "--offline", "--quiet", "--target-dir", str(target)],
                   cwd=crate, check=True, capture_output=True)  # fmt: skip
    _verify(str(target / "debug" / "pubsub-bruteforce"), release, capsys)


@pytest.mark.parametrize("example", ["go-bruteforce", "rust-bruteforce"])
def test_each_example_has_a_readme_that_says_how_to_verify(example: str) -> None:
    text = (EXAMPLES / example / "README.md").read_text()
    assert "pubsub-spec verify --impl" in text and "PROTOCOL.md" in text
