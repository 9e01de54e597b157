"""Reading a vectors release tarball (`pubsub-spec vectors export`) safely, before anything runs
(docs/conformance.md, "Guarantees"):

- extraction is bounded: at most `max_members` members and `max_total_bytes` of declared
  content, each member a regular file or a folder (no symbolic or hard links, devices, FIFOs
  or sparse files), every name relative and inside one top folder (no `..`, no absolute name);
  the bytes are written by this module with `O_EXCL | O_NOFOLLOW` into a fresh folder, so
  nothing lands outside it;
- the release is verified against its manifest `RELEASE.json`: every listed file present, no
  file that is not listed, every SHA-256 equal, exactly one `vectors/` folder; a `NAME.sha256`
  beside the tarball (as `vectors export` writes it) must name the tarball's own digest;
- a truncated or corrupted tarball (gzip CRC, `EOFError`) is a `ReleaseError`.

The first mismatch is raised as a `ReleaseError` naming the member; `pubsub-spec verify` exits 2
with it and runs nothing.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MIB = 1 << 20
CHUNK = 1 << 16


class ReleaseError(ValueError):
    """A damaged, altered, extended or oversized release: the first mismatch, named."""


@dataclass(frozen=True)
class ReleaseLimits:
    """Upper bounds of one release's extraction. The committed corpus is 57 files, 0.4 MiB."""

    max_members: int = 4096
    max_total_bytes: int = 256 * MIB
    max_manifest_bytes: int = MIB


def _check_member(m: tarfile.TarInfo) -> PurePosixPath:
    name = PurePosixPath(m.name)
    if m.name.startswith("/") or name.is_absolute() or ".." in name.parts or not name.parts:
        raise ReleaseError(f"member {m.name!r}: a path outside the release folder")
    if m.issym() or m.islnk():
        raise ReleaseError(f"member {m.name!r}: a link (to {m.linkname!r}); a release has none")
    if m.issparse():
        raise ReleaseError(f"member {m.name!r}: a sparse file; a release has none")
    if not (m.isreg() or m.isdir()):
        raise ReleaseError(f"member {m.name!r}: not a regular file or folder (a device or FIFO)")
    return name


def _write_member(tar: tarfile.TarFile, m: tarfile.TarInfo, target: Path) -> str:
    """Copy a regular member into `target` (a new file, never through a link); its SHA-256."""
    src = tar.extractfile(m)
    if src is None:
        raise ReleaseError(f"member {m.name!r}: unreadable")
    digest = hashlib.sha256()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        left = m.size
        while left > 0:
            chunk = src.read(min(CHUNK, left))
            if not chunk:
                raise ReleaseError(f"member {m.name!r}: truncated")
            digest.update(chunk)
            out.write(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def extract_release(path: Path, dest: Path, limits: ReleaseLimits = ReleaseLimits()) -> Path:
    """Extract and verify the release `path` into the empty folder `dest`; its `vectors/`
    folder. Raises ReleaseError on the first problem (module docstring)."""
    try:
        return _extract(path, dest, limits)
    except ReleaseError:
        raise
    except (EOFError, tarfile.TarError, zlib.error, OSError) as e:
        raise ReleaseError(f"truncated or damaged tarball ({type(e).__name__}: {e})") from None


def _check_stream(path: Path, limits: ReleaseLimits) -> None:
    """Decompress the whole gzip stream once, bounded, so that a damaged middle or a cut end
    (CRC, length, EOFError) is found before any member is trusted."""
    with open(path, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            return  # not gzip: tarfile reads it (or refuses it) as it is
    bound = limits.max_total_bytes + (limits.max_members + 2) * 3 * 512 + 2 * 10240
    seen = 0
    with gzip.open(path, "rb") as g:
        while chunk := g.read(CHUNK):
            seen += len(chunk)
            if seen > bound:
                raise ReleaseError(f"more than {bound} bytes uncompressed (a tar bomb?)")


def _extract(path: Path, dest: Path, limits: ReleaseLimits) -> Path:
    _check_sidecar(path)
    _check_stream(path, limits)
    top: str | None = None
    hashes: dict[str, str] = {}
    total = 0
    count = 0
    with tarfile.open(path, "r:*") as tar:
        for m in tar:
            count += 1
            if count > limits.max_members:
                raise ReleaseError(f"more than {limits.max_members} members (a tar bomb?)")
            name = _check_member(m)
            if top is None:
                top = name.parts[0]
            elif name.parts[0] != top:
                raise ReleaseError(f"member {m.name!r}: outside the top folder {top!r}")
            rel = PurePosixPath(*name.parts[1:])
            target = dest.joinpath(*name.parts)
            if m.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            if not rel.parts:
                raise ReleaseError(f"member {m.name!r}: a file where the top folder should be")
            total += m.size
            if total > limits.max_total_bytes:
                raise ReleaseError(
                    f"member {m.name!r}: more than {limits.max_total_bytes} bytes in all "
                    "(a tar bomb?)"
                )
            if str(rel) in hashes:
                raise ReleaseError(f"member {m.name!r}: listed twice")
            target.parent.mkdir(parents=True, exist_ok=True)
            hashes[str(rel)] = _write_member(tar, m, target)
    if top is None:
        raise ReleaseError("an empty tarball")
    return _check_manifest(dest / top, hashes, limits)


def _check_sidecar(path: Path) -> None:
    side = path.with_name(path.name + ".sha256")
    if not side.is_file():
        return
    words = side.read_text(encoding="utf-8", errors="replace").split()
    if not words:
        raise ReleaseError(f"{side}: empty")
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            digest.update(chunk)
    if words[0].lower() != digest.hexdigest():
        raise ReleaseError(f"{path.name}: SHA-256 {digest.hexdigest()} differs from {side.name}")


def _check_manifest(root: Path, hashes: dict[str, str], limits: ReleaseLimits) -> Path:
    if "RELEASE.json" not in hashes:
        raise ReleaseError("no RELEASE.json manifest")
    manifest_path = root / "RELEASE.json"
    if manifest_path.stat().st_size > limits.max_manifest_bytes:
        raise ReleaseError(f"RELEASE.json larger than {limits.max_manifest_bytes} bytes")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ReleaseError(f"RELEASE.json: not JSON ({e})") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise ReleaseError("RELEASE.json: field 'files' is not a map of file -> SHA-256")
    present = {k: v for k, v in hashes.items() if k != "RELEASE.json"}
    for name in sorted(files):
        if name not in present:
            raise ReleaseError(f"member {name!r} listed in RELEASE.json is missing")
    for name in sorted(present):
        if name not in files:
            raise ReleaseError(f"member {name!r} is not listed in RELEASE.json")
    for name in sorted(files):
        if files[name].lower() != present[name]:
            raise ReleaseError(
                f"member {name!r}: SHA-256 {present[name]} differs from RELEASE.json's "
                f"{files[name]}"
            )
    folders = sorted({str(PurePosixPath(n).parent) for n in present if _in_vectors(n)})
    if folders != ["vectors"]:
        raise ReleaseError(
            f"expected exactly one vector folder 'vectors/', found {folders or 'none'}"
        )
    if "vectors/index.json" not in present:
        raise ReleaseError("no vectors/index.json")
    return root / "vectors"


def _in_vectors(name: str) -> bool:
    parts = PurePosixPath(name).parts
    if parts[0] == "steps":  # the step vectors (docs/steps.md), a folder of their own
        return False
    return "vectors" in parts[:-1] or parts[-1] == "index.json"


@contextlib.contextmanager
def unpacked_release(path: Path, limits: ReleaseLimits = ReleaseLimits()) -> Iterator[Path]:
    """The verified release `path` in a temporary folder (removed on every exit path), yielding
    its `vectors/` folder."""
    with tempfile.TemporaryDirectory(prefix="pubsub-vectors-") as tmp:
        yield extract_release(path, Path(tmp), limits)
