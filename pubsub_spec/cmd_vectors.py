"""`pubsub-spec vectors export DIR`: the implementer's kit as a versioned release tarball, like a
conformance release: the committed corpus `conformance/vectors/` with its index, the
trace format (FORMAT.md, trace.schema.json), the process protocol (PROTOCOL.md), a README and a
RELEASE.json manifest with every file's SHA-256. The tarball is reproducible: the same project
version gives the same bytes (sorted names, fixed times and owners, gzip without a timestamp).
`pubsub-spec verify --impl CMD TARBALL` runs it (docs/implementers.md)."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

from pubsub_spec.argtypes import out_dir
from pubsub_spec.ci import BAD_INPUT, EPILOG, PASS

NAME = "pubsub-conformance-vectors"
# Release times are fixed so that an export is reproducible: 2000-01-01T00:00:00Z.
MTIME = 946684800


def project_version() -> str:
    try:
        return metadata.version("pubsub-spec")
    except metadata.PackageNotFoundError:  # run from a checkout without an install
        return "0+unknown"


@dataclass(frozen=True)
class Release:
    name: str  # the folder inside the tarball, e.g. pubsub-conformance-vectors-0.1.0
    files: dict[str, bytes]  # path inside that folder -> content


def _kit_readme(name: str, version: str, traces: int) -> str:
    return f"""# {name}

Conformance vectors of pubsub-spec {version}: {traces} traces with their expected deliveries
(`vectors/`, listed in `vectors/index.json`), the trace format (`FORMAT.md`,
`trace.schema.json`) and the process protocol your program speaks (`PROTOCOL.md`).
`RELEASE.json` lists every file with its SHA-256.

Run your implementation on them (no Spark, no checkout needed):

```sh
pip install pubsub_spec-{version}-py3-none-any.whl   # the project's wheel
pubsub-spec verify --impl "./my-impl --flag" {name}.tar.gz   # or the unpacked vectors/ folder
pubsub-spec verify --impl "./my-impl" --junit vectors.xml {name}.tar.gz   # for CI
```

`steps/` holds the step vectors: one protocol handler of one node per vector, each system's
bundled in `steps/<system>/vectors.ndjson` with its JSON Schema and a README per handler
(`pubsub-spec verify --steps --impl "./my-impl" {name}.tar.gz`; PROTOCOL.md, "Steps").

Or write your own runner: for each `trace` of `vectors/index.json`, send the trace to your
program as PROTOCOL.md says and compare its deliveries with the `expected` file (FORMAT.md,
"Expected deliveries"): every (event, subscription) pair exactly once, nothing else.
"""


def build_release(version: str | None = None) -> Release:
    """The kit's files, read through importlib.resources (package data when installed)."""
    version = version or project_version()
    name = f"{NAME}-{version}"
    pkg = resources.files("pubsub_spec.conformance")
    files: dict[str, bytes] = {}
    vectors = pkg / "vectors"
    for entry in sorted(vectors.iterdir(), key=lambda e: e.name):
        if entry.is_file() and (entry.name.endswith(".ndjson") or entry.name == "index.json"):
            files[f"vectors/{entry.name}"] = entry.read_bytes()
    for doc in ("FORMAT.md", "PROTOCOL.md", "trace.schema.json", "OBSERVATIONS.md",
                "observation.schema.json"):  # fmt: skip
        files[doc] = (pkg / doc).read_bytes()
    from pubsub_spec.conformance.steps.vectors import files as step_files

    for path, content in step_files().items():  # the step vectors (docs/steps.md)
        files[f"steps/{path}"] = content
    index = json.loads(files["vectors/index.json"])
    traces = len(index.get("traces", []) if isinstance(index, dict) else index)
    files["README.md"] = _kit_readme(name, version, traces).encode()
    from pubsub_spec.conformance.protocol import PROTOCOL_VERSION
    from pubsub_spec.conformance.traceio import VERSIONS

    manifest = {
        "name": NAME,
        "version": version,
        "trace_format_versions": list(VERSIONS),
        "protocol_version": PROTOCOL_VERSION,
        "traces": traces,
        "files": {p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())},
    }
    files["RELEASE.json"] = (json.dumps(manifest, indent=1) + "\n").encode()
    return Release(name, files)


def write_tarball(release: Release, directory: Path) -> Path:
    """`directory/<name>.tar.gz`, byte for byte the same for the same release."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, content in sorted(release.files.items()):
            info = tarfile.TarInfo(f"{release.name}/{path}")
            info.size, info.mtime, info.mode = len(content), MTIME, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(content))
    target = directory / f"{release.name}.tar.gz"
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
        gz.write(raw.getvalue())
    _replace(target, buf.getvalue())
    return target


class ExportError(ValueError):
    """A target name the export refuses to write: a link, a folder, something not a file."""


def check_target(path: Path) -> None:
    """Refuse a name that is a link (it would be written through) or not a regular file."""
    if path.is_symlink():
        raise ExportError(f"{path} is a symbolic link; refusing to write through it")
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise ExportError(f"{path} exists and is {kind}")


def _replace(target: Path, data: bytes) -> None:
    """Write `data` to a new file beside `target`, then rename it over `target`: the rename
    replaces a link or file by name and never writes through a link."""
    check_target(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    sub = p.add_subparsers(dest="action", required=True)
    exp = sub.add_parser(
        "export",
        help="write the vectors release tarball (corpus, index, FORMAT.md, PROTOCOL.md, schema)",
        description=__doc__,
    )
    exp.add_argument("dir", type=out_dir, metavar="DIR", help="the tarball is written here")
    exp.add_argument(
        "--version", default=None, help="release version (default: the installed project's)"
    )


def run(args: argparse.Namespace) -> int:
    if args.action != "export":  # argparse allows no other; kept for a clear message
        print(f"error: unknown action {args.action!r}", file=sys.stderr)
        return BAD_INPUT
    directory = Path(args.dir)
    release = build_release(args.version)
    name = f"{release.name}.tar.gz"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path in (directory / name, directory / f"{name}.sha256"):
            check_target(path)  # both checked before either is written
        target = write_tarball(release, directory)
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        _replace(directory / f"{name}.sha256", f"{digest}  {target.name}\n".encode())
    except (OSError, ExportError) as e:
        print(f"error: vectors export: {e}", file=sys.stderr)
        return BAD_INPUT
    traces = json.loads(release.files["RELEASE.json"])["traces"]
    print(f"{target} ({traces} traces, {len(release.files)} files, sha256 {digest})")
    return PASS
