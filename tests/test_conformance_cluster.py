"""A real Spark cluster: a standalone master and one worker on loopback, started from the
pyspark wheel; `conform --master spark://...` gives the same verdict table as local mode."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pubsub_spec.conformance.cluster import start_cluster

pytestmark = pytest.mark.spark
# a few built-ins of different papers: the test is about the cluster giving local mode's table
ARGS = [
    "--count", "1", "--profile", "tiny", "--generators", "uniform,churn,cutoff",
    "--impls", "reference,reference-array,oracle-python,kyra,octopia-snr,tam",
]  # fmt: skip


def conform(out: Path, *extra: str) -> tuple[int, str]:
    cmd = [sys.executable, "-m", "pubsub_spec.cli", "conform", "--out", str(out), *ARGS, *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    return proc.returncode, proc.stdout + proc.stderr[-2000:]


def table(out: Path) -> str:
    md = (out / "report.md").read_text()
    return md[md.index("| implementation") : md.index("## Failures")]


def test_cluster_gives_the_same_verdicts_as_local_mode(tmp_path: Path) -> None:
    cluster = start_cluster(tmp_path / "logs")
    try:
        code, text = conform(tmp_path / "cluster", "--master", cluster.url)
    finally:
        cluster.stop()
    assert cluster.master.poll() is not None and cluster.worker.poll() is not None
    assert code in (0, 1), text
    local_code, local_text = conform(tmp_path / "local")
    assert code == local_code, (text, local_text)
    assert table(tmp_path / "cluster") == table(tmp_path / "local")
    assert "| reference | pass |" in table(tmp_path / "cluster")
