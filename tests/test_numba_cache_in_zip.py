"""The compiled kernels leave nothing in the user's cache when they run from the zip that
`conform` ships to Spark's workers (`spark_session.ship_code`): that zip's path differs from run
to run, and numba's zip cache locator keys a folder of `~/.cache/numba` on it, so a disk cache
there would only add a folder per run (`bucket_matcher.CACHED`)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from pubsub_spec.conformance.spark_session import write_code_zip

RUN_KERNELS = """
import numpy as np
from pubsub_spec.conformance.fingerprint import FingerprintSink
from pubsub_spec.conformance.variants import bucket_matcher
from pubsub_spec.conformance.variants.indexed_matcher import indexed_fingerprint
from pubsub_spec.conformance.generators import GENERATORS
assert ".zip" in bucket_matcher.__file__, bucket_matcher.__file__
assert bucket_matcher.CACHED is False
print(indexed_fingerprint(GENERATORS["uniform"](1, 0, "tiny")))
"""

CACHED_KERNEL = """
import kernel
print(kernel.twice(21))
"""


def _run(code: str, path: Path, cache: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(path), "XDG_CACHE_HOME": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(  # not from the checkout's folder, whose pubsub_spec comes first
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False,
        cwd=cache,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_kernels_run_from_the_shipped_zip_leave_no_cache_folder(tmp_path: Path) -> None:
    code = tmp_path / "code.zip"
    write_code_zip(code)
    cache = tmp_path / "cache"
    cache.mkdir()
    assert _run(RUN_KERNELS, code, cache).startswith("(")
    assert not (cache / "numba").exists()


def test_a_kernel_cached_on_disk_from_a_zip_would_leave_one(tmp_path: Path) -> None:
    """What the first test guards against, shown on a one-function module."""
    code = tmp_path / "kernel.zip"
    with zipfile.ZipFile(code, "w") as z:
        z.writestr(
            "kernel.py",
            "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n",
        )
    cache = tmp_path / "cache"
    cache.mkdir()
    assert _run(CACHED_KERNEL, code, cache).strip() == "42"
    assert any((cache / "numba").iterdir())
