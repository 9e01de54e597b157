"""Output paths a command owns (docs/conformance.md, "Guarantees"):

- `check_outputs`: every output path (`--report`, `--json`, `--junit`, `--out`) is checked for
  writability before the work starts, by creating (and removing) a probe file beside it, so a
  read-only folder, a path under a file or a folder where a file is wanted is exit 2 at once,
  not a traceback after the run;
- `locked`: an output folder is locked for the run with `flock` on `DIR/.pubsub-spec.lock`; a
  second run on the same folder refuses at once (exit 2) instead of mixing its files into the
  first one's. The kernel drops the lock when the process ends, however it ends, so no stale
  lock survives a crash or SIGKILL;
- `MARKER`: a folder a run wrote carries `DIR/.pubsub-spec-output`; a command that clears
  subfolders of its output folder (`conform --ops`) clears only those of a folder that has it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK = ".pubsub-spec.lock"
MARKER = ".pubsub-spec-output"


class OutputProblem(Exception):
    """An output path that cannot be written, or a folder another run holds (exit 2)."""


def _probe_dir(folder: Path, what: str) -> None:
    for parent in (folder, *folder.parents):
        if parent.exists():
            if not parent.is_dir():
                raise OutputProblem(f"{what}: {parent} is not a folder")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".pubsub-spec-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise OutputProblem(f"{what}: cannot write in {folder} ({e.strerror or e})") from None


def check_file(path: str | Path, what: str) -> None:
    """`path` can be written as a file: its folder is writable and it is not a folder/link."""
    p = Path(path)
    if p.is_dir():
        raise OutputProblem(f"{what}: {p} is a folder, expected a file")
    if p.exists() and not p.is_file():
        raise OutputProblem(f"{what}: {p} exists and is not a regular file")
    _probe_dir(p.parent if str(p.parent) else Path("."), what)
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputProblem(f"{what}: {p} is not writable")


def check_dir(path: str | Path, what: str) -> None:
    """`path` can be written as a folder (created if missing)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputProblem(f"{what}: {p} exists and is not a folder")
    _probe_dir(p, what)


def check_outputs(files: dict[str, str | None], dirs: dict[str, str | None]) -> None:
    """Check every named output (flag -> path; None: not asked for); raises the first problem."""
    for flag, path in dirs.items():
        if path:
            check_dir(path, flag)
    for flag, path in files.items():
        if path:
            check_file(path, flag)


@contextlib.contextmanager
def locked(folder: str | Path, command: str) -> Iterator[Path]:
    """Hold `folder`'s lock for the block; OutputProblem if another run holds it."""
    p = Path(folder)
    p.mkdir(parents=True, exist_ok=True)
    fd = os.open(p / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            raise OutputProblem(
                f"{p} is in use by another run ({holder or 'pid unknown'}); wait for it to "
                f"finish or choose another folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, pubsub-spec {command}\n".encode(), 0)
        (p / MARKER).touch()
        yield p
    finally:
        os.close(fd)  # releases the flock


def written_by_us(folder: str | Path) -> bool:
    """True if a pubsub-spec run wrote `folder` (it carries MARKER)."""
    return (Path(folder) / MARKER).is_file()
