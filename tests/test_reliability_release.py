"""A vectors release is verified before anything runs (docs/conformance.md, "Guarantees"):
`verify` on a damaged, altered, extended or oversized tarball exits 2 naming the first mismatch
and runs no trace; `vectors export` never writes through a link or onto a folder."""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from pubsub_spec import cmd_vectors, cmd_verify
from pubsub_spec.cmd_vectors import Release, build_release, write_tarball
from pubsub_spec.conformance.release import ReleaseError, ReleaseLimits, extract_release

Members = list[tuple[tarfile.TarInfo, bytes | None]]


def cli(argv: list[str]) -> int:
    """`pubsub-spec verify ...` / `pubsub-spec vectors ...` (their modules only)."""
    if argv[0] == "verify":
        return cmd_verify.main(argv[1:])
    p = argparse.ArgumentParser()
    cmd_vectors.add_arguments(p)
    return cmd_vectors.run(p.parse_args(argv[1:]))


def _members(release: Release) -> Members:
    out: Members = []
    for path, content in sorted(release.files.items()):
        info = tarfile.TarInfo(f"{release.name}/{path}")
        info.size = len(content)
        out.append((info, content))
    return out


def _tar(path: Path, members: Members) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, content in members:
            tar.addfile(info, io.BytesIO(content) if content is not None else None)
    path.write_bytes(gzip.compress(raw.getvalue(), compresslevel=1))
    return path


def _manifest(release: Release, files: dict[str, bytes]) -> bytes:
    m = json.loads(release.files["RELEASE.json"])
    m["files"] = {p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())}
    return (json.dumps(m) + "\n").encode()


@pytest.fixture(scope="module")
def release() -> Release:
    return build_release("9.9.9")


def _verify(tmp_path: Path, tarball: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli(["verify", "--builtin", "reference", str(tarball)])
    out, err = capsys.readouterr()
    assert "[  1/" not in out, "a trace ran before the release was verified"
    return code, err


def test_the_exported_release_verifies_and_runs(
    tmp_path: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    tarball = write_tarball(release, tmp_path)
    assert extract_release(tarball, tmp_path / "x").name == "vectors"
    assert cli(["verify", "--builtin", "reference", str(tarball)]) == 0
    assert "traces pass" in capsys.readouterr().out


def _drop_first_vector(release: Release) -> Members:
    ms = _members(release)
    return [(i, c) for i, c in ms if not i.name.endswith("/vectors/uniform-tiny-0000.ndjson")]


def _alter_one(release: Release) -> Members:
    ms = _members(release)
    out: Members = []
    for info, content in ms:
        if info.name.endswith("/vectors/uniform-tiny-0000.ndjson"):
            assert content is not None
            content = content.replace(b'"seq"', b'"seq" ', 1)
            info.size = len(content)
        out.append((info, content))
    return out


def _extra(release: Release) -> Members:
    info = tarfile.TarInfo(f"{release.name}/vectors/extra.ndjson")
    info.size = 3
    return [*_members(release), (info, b"{}\n")]


def _altered_hash(release: Release) -> Members:
    manifest = json.loads(release.files["RELEASE.json"])
    manifest["files"]["FORMAT.md"] = "0" * 64
    files = {**release.files, "RELEASE.json": (json.dumps(manifest) + "\n").encode()}
    return _members(Release(release.name, files))


def _two_vector_folders(release: Release) -> Members:
    files = {k: v for k, v in release.files.items() if k != "RELEASE.json"}
    files["more/vectors/index.json"] = files["vectors/index.json"]
    files["RELEASE.json"] = _manifest(release, files)
    return _members(Release(release.name, files))


def _link(release: Release) -> Members:
    info = tarfile.TarInfo(f"{release.name}/vectors/passwd.ndjson")
    info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
    return [*_members(release), (info, None)]


def _hardlink(release: Release) -> Members:
    info = tarfile.TarInfo(f"{release.name}/vectors/h.ndjson")
    info.type, info.linkname = tarfile.LNKTYPE, f"{release.name}/README.md"
    return [*_members(release), (info, None)]


def _traversal(release: Release) -> Members:
    info = tarfile.TarInfo(f"{release.name}/../../escaped.ndjson")
    info.size = 3
    return [(info, b"{}\n"), *_members(release)]


def _device(release: Release) -> Members:
    info = tarfile.TarInfo(f"{release.name}/vectors/null")
    info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
    return [(info, None), *_members(release)]


def _many(release: Release) -> Members:
    extra: Members = []
    for n in range(5000):
        info = tarfile.TarInfo(f"{release.name}/bomb/{n}")
        extra.append((info, b""))
    return [*_members(release), *extra]


DAMAGE: dict[str, tuple[Callable[[Release], Members], str]] = {
    "missing member": (
        _drop_first_vector,
        "'vectors/uniform-tiny-0000.ndjson' listed in RELEASE.json is missing",
    ),
    "altered member": (_alter_one, "'vectors/uniform-tiny-0000.ndjson': SHA-256"),
    "extra member": (_extra, "'vectors/extra.ndjson' is not listed in RELEASE.json"),
    "altered hash": (_altered_hash, "'FORMAT.md': SHA-256"),
    "two vector folders": (_two_vector_folders, "exactly one vector folder"),
    "symbolic link": (_link, "a link"),
    "hard link": (_hardlink, "a link"),
    "path traversal": (_traversal, "outside the release folder"),
    "device": (_device, "not a regular file or folder"),
    "many members": (_many, "more than 4096 members"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_release_exits_2_naming_the_mismatch_before_running(
    case: str, tmp_path: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    make, words = DAMAGE[case]
    tarball = _tar(tmp_path / "r.tar.gz", make(release))
    code, err = _verify(tmp_path, tarball, capsys)
    assert code == 2 and words in err, err
    assert not (tmp_path.parent / "escaped.ndjson").exists()


def test_a_corrupted_middle_or_truncated_tarball_exits_2(
    tmp_path: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write_tarball(release, tmp_path).read_bytes()
    middle = bytearray(good)
    for k in range(len(good) // 2, len(good) // 2 + 64):
        middle[k] ^= 0xFF
    for name, data in (("middle.tar.gz", bytes(middle)), ("cut.tar.gz", good[: len(good) // 2])):
        path = tmp_path / name
        path.write_bytes(data)
        code, err = _verify(tmp_path, path, capsys)
        assert code == 2 and "truncated or damaged" in err and "Traceback" not in err, err


def test_a_sidecar_digest_that_differs_is_refused(
    tmp_path: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    tarball = write_tarball(release, tmp_path)
    (tmp_path / f"{tarball.name}.sha256").write_text(f"{'0' * 64}  {tarball.name}\n")
    code, err = _verify(tmp_path, tarball, capsys)
    assert code == 2 and "differs from" in err


def test_extraction_is_bounded_in_bytes(tmp_path: Path, release: Release) -> None:
    """A bomb: one member of 8 MiB of zeros (a few KiB compressed) over a lowered limit is
    refused on its header, before its bytes are written."""
    info = tarfile.TarInfo(f"{release.name}/vectors/zeros.ndjson")
    info.size = 8 << 20
    tarball = _tar(tmp_path / "bomb.tar.gz", [*_members(release), (info, bytes(info.size))])
    plain = _tar(tmp_path / "plain.tar.gz", list(_members(release)))  # the step vectors too
    assert tarball.stat().st_size < plain.stat().st_size + 200_000
    base = sum(len(c) for c in release.files.values())  # the release's own bytes
    limit = ReleaseLimits(max_total_bytes=base + (4 << 20))
    with pytest.raises(ReleaseError, match=rf"more than {base + (4 << 20)} bytes in all"):
        extract_release(tarball, tmp_path / "x", limit)
    written = sum(p.stat().st_size for p in (tmp_path / "x").rglob("*") if p.is_file())
    assert written < base + (1 << 20)


def test_export_never_writes_through_a_link_or_onto_a_folder(
    tmp_path: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    out = tmp_path / "kit"
    out.mkdir()
    name = "pubsub-conformance-vectors-9.9.9.tar.gz"
    (out / name).symlink_to(victim)
    assert cli(["vectors", "export", str(out), "--version", "9.9.9"]) == 2
    assert "link" in capsys.readouterr().err
    assert victim.read_text() == "mine\n"
    os.unlink(out / name)
    (out / name).mkdir()
    assert cli(["vectors", "export", str(out), "--version", "9.9.9"]) == 2
    assert "folder" in capsys.readouterr().err
    (out / name).rmdir()
    (out / f"{name}.sha256").symlink_to(victim)
    assert cli(["vectors", "export", str(out), "--version", "9.9.9"]) == 2
    assert victim.read_text() == "mine\n" and not (out / name).exists()
    os.unlink(out / f"{name}.sha256")
    assert cli(["vectors", "export", str(out), "--version", "9.9.9"]) == 0
    assert not (out / name).is_symlink()
