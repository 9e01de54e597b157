"""`conform --ops N --level protocol` (conformance/scale/): the protocol level judged in the
executors beside each implementation, one row each, the same delivery fingerprints as without,
counted in Spark, shown in the table, the report, JSON and the exit code."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec.conformance.scale.executor import Job, run_partition
from pubsub_spec.conformance.scale.planning import plan
from tests.spark_fixtures import spark  # noqa: F401  (the session fixture)
from tests.test_observed import BROADCAST


def broadcast(tmp_path: Path) -> str:
    path = tmp_path / "broadcast.py"
    path.write_text(BROADCAST)
    return f"cmd:{sys.executable} {path}"


def rows(folder: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    path = folder / "results" / "part-00000.parquet"
    table: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return table


def test_a_partition_judges_the_protocol_beside_each_run(tmp_path: Path) -> None:
    """No Spark: one task's body in process, with and without the protocol level."""
    p = plan(150, ("uniform", "zipf"), "tiny", 3, max_partition_ops=200, min_partitions=1)
    impls = ("oracle-indexed", "reference", "reference-lbdd", "tam", broadcast(tmp_path))
    plain = Job(p, str(tmp_path / "plain"), impls, 1.0, 1.0)
    judged = Job(p, str(tmp_path / "judged"), impls, 1.0, 1.0, protocol=True)
    run_partition(plain, 0)
    run_partition(judged, 0)
    before, after = rows(tmp_path / "plain"), rows(tmp_path / "judged")
    assert len(before) == len(after) > 0
    key = ("trace_id", "impl", "known", "n", "h1", "h2")
    # the observed run in the isolated child delivers exactly what the plain run does
    assert [tuple(r[k] for k in key) for r in before] == [tuple(r[k] for k in key) for r in after]
    assert {r["protocol"] for r in before} == {""}
    by_impl: dict[str, set[str]] = {}
    for r in after:
        by_impl.setdefault(r["impl"], set()).add(r["protocol"])
    assert by_impl["oracle-indexed"] == {"not reported"}
    for builtin in ("reference", "reference-lbdd", "tam"):
        assert by_impl[builtin] == {"conforms"}, [
            r["protocol_detail"] for r in after if r["impl"] == builtin
        ]
    assert by_impl[impls[-1]] == {"deviates (generic/cost-envelope)"}
    assert all("generic/cost-envelope" in r["protocol_detail"] for r in after
               if r["impl"] == impls[-1])  # fmt: skip


def test_a_claims_variants_share_its_reference_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tam` runs first on each trace and sends its cost back with its verdict; `tam-all` and
    `tam-fewest-keys` are judged against that cost and never run the reference again (here a
    second reference run would break: the isolated child inherits the patch). Without `tam`
    beside them they run it, and the patch shows."""
    from pubsub_spec.conformance import observed

    def no_second_run(system: str, trace: Any) -> Any:
        raise AssertionError("the reference ran again")

    monkeypatch.setattr(observed, "reference_run", no_second_run)
    p = plan(150, ("uniform", "zipf"), "tiny", 3, max_partition_ops=200, min_partitions=1)
    shared = Job(p, str(tmp_path / "shared"), ("tam", "tam-all", "tam-fewest-keys"), 1.0, 1.0,
                 protocol=True)  # fmt: skip
    run_partition(shared, 0)
    got = rows(tmp_path / "shared")
    assert {r["impl"] for r in got} == {"tam", "tam-all", "tam-fewest-keys"}
    assert {r["protocol"] for r in got} == {"conforms"}, [r["protocol_detail"] for r in got]
    alone = Job(p, str(tmp_path / "alone"), ("tam-all",), 1.0, 1.0, protocol=True)
    run_partition(alone, 0)
    assert all("the reference ran again" in r["protocol_detail"] for r in rows(tmp_path / "alone"))


@pytest.mark.spark
def test_conform_ops_level_protocol(
    spark: Any,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pubsub_spec.cli import main

    out = tmp_path / "out"
    impl = broadcast(tmp_path).removeprefix("cmd:")
    args = ["conform", "--out", str(out), "--ops", "400", "--profile", "tiny",
            "--generators", "uniform,zipf", "--seed", "5", "--impls", "oracle-indexed,reference",
            "--impl", impl, "--no-shrink", "--json", str(tmp_path / "r.json")]  # fmt: skip
    assert main(args) == 0  # the delivery level alone: the broadcast delivers right
    capsys.readouterr()
    code = main([*args, "--level", "protocol"])
    text = capsys.readouterr().out
    assert code == 1, text
    body = json.loads((tmp_path / "r.json").read_text())
    impls = {i["impl"]: i for i in body["implementations"]}
    assert impls["reference"]["protocol"] == "conforms" and impls["reference"]["deviates"] == 0
    assert impls["oracle-indexed"]["protocol"] == "not reported"
    bad = next(v for k, v in impls.items() if k.startswith("cmd:"))
    assert bad["verdict"] == "pass" and bad["protocol"] == "deviates (generic/cost-envelope)"
    assert bad["deviates"] == bad["traces"] > 0
    assert body["protocol_deviations"] and "protocol deviates: generic/cost-envelope" in text
    md = (out / "report.md").read_text()
    assert "| protocol | conforms | deviates | not reported |" in md
    assert "## Protocol deviations" in md
