"""Outputs are owned (docs/conformance.md, "Guarantees"): every output path is checked before
the work starts (exit 2, no traceback), an output folder is locked for the run, `conform --ops`
never replaces folders a pubsub-spec run did not write, `--master` is validated by scheme; and
SIGKILL of `conform` leaves no process of the run (Spark, workers, the program under test and
its children)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pubsub_spec.cli import main as cli
from pubsub_spec.outputs import MARKER, locked
from tests.test_reliability_signals import HOSTILE, _all_gone, _descendants, _wait_pids


def _code(argv: list[str]) -> int:
    """The exit status of `pubsub-spec ARGV`, whether argparse or the command refuses."""
    try:
        return cli(argv)
    except SystemExit as e:
        return int(e.code or 0)


@pytest.mark.parametrize("flag", ["--json", "--junit"])
@pytest.mark.parametrize("command", ["verify", "conform"])
def test_an_unwritable_output_file_is_exit_2_before_any_work(
    command: str, flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "f"
    a_file.write_text("x")
    for bad in ("/proc/pubsub-spec.json", str(a_file / "under-a-file.json")):
        out = ["--out", str(tmp_path / "o")] if command == "conform" else []
        assert _code([command, flag, bad, *out]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and flag in err, err


def test_an_unwritable_report_or_out_folder_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["verify", "--report", "/proc/pubsub-spec-report"]) == 2
    assert "--report" in capsys.readouterr().err
    assert cli(["conform", "--out", "/proc/pubsub-spec-out"]) == 2
    assert "--out" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["verify --report", "conform --out"])
def test_a_second_run_on_a_locked_folder_refuses(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with locked(out, "test"):
        assert cli([*command.split(), str(out)]) == 2
        err = capsys.readouterr().err
        assert "in use by another run" in err and f"pid {os.getpid()}" in err
    assert cli(["verify", "--report", str(out)]) == 0  # released: the next run may go


def test_conform_ops_never_replaces_folders_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    (out / "results" / "mine.txt").write_text("precious")
    assert cli(["conform", "--ops", "100", "--out", str(out)]) == 2
    assert "not written by pubsub-spec" in capsys.readouterr().err
    assert (out / "results" / "mine.txt").read_text() == "precious"
    assert not (out / MARKER).exists()


@pytest.mark.parametrize("master", ["bogus://x", "local[", "spark://", "http://h:7077"])
def test_a_master_that_is_not_a_spark_url_is_exit_2(
    master: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        cli(["conform", "--master", master])
    assert e.value.code == 2 and "not a Spark master URL" in capsys.readouterr().err


def _start_conform(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    pids = tmp_path / "pids"
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "HOSTILE_PIDS": str(pids), "HOSTILE_MODE": "family",
           "TMPDIR": str(tmp_path / "tmp")}  # fmt: skip
    cmd = [
        sys.executable, "-c", "import sys; from pubsub_spec.cli import main; sys.exit(main())",
        "conform", "--generators", "uniform", "--count", "1", "--profile", "tiny",
        "--impls", "reference", "--impl", f"{sys.executable} {HOSTILE}",
        "--op-timeout", "100", "--total-timeout", "300", "--out", str(tmp_path / "out"),
        "--json", str(tmp_path / "c.json"), "--no-shrink",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    return proc, pids


def test_conform_killed_mid_run_leaves_no_process_of_the_run(tmp_path: Path) -> None:
    signum = signal.SIGKILL
    from pubsub_spec.ci import java_problem

    if java_problem() is not None:
        pytest.skip("Spark needs Java 17+")
    proc, pids_file = _start_conform(tmp_path)
    program = _wait_pids(pids_file, 2, proc, limit=240)
    family = program | _descendants(proc.pid)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    left = _all_gone(family)
    assert not left, f"alive after 5 s: {left}"
    assert proc.returncode == -signum, err.decode()[-2000:]


def test_term_of_conform_stops_spark_and_the_program_and_writes_an_interrupted_report(
    tmp_path: Path,
) -> None:
    """The signal lands while the main thread waits in a Spark call (the program under test
    never answers, its op timeout is 100 s): the jobs are cancelled, the report and JSON
    written marked interrupted, exit 143, nothing of the run left, no temporary folder."""
    from pubsub_spec.ci import java_problem

    if java_problem() is not None:
        pytest.skip("Spark needs Java 17+")
    proc, pids_file = _start_conform(tmp_path)
    program = _wait_pids(pids_file, 2, proc, limit=240)
    family = program | _descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=90)  # 40 s on a loaded 2-core machine; was: never
    text = err.decode()[-3000:]
    assert proc.returncode == 128 + signal.SIGTERM, text
    assert "Traceback" not in text and "interrupted by SIGTERM" in text, text
    left = _all_gone(family)
    assert not left, f"alive 5 s after conform ended: {left}"
    body = json.loads((tmp_path / "c.json").read_text())
    assert body["interrupted"] == "SIGTERM" and body["exit_code"] == 143
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Interrupted" in report and "(interrupted)" in report
    assert not list((tmp_path / "tmp").glob("pubsub-spec-*")), "Spark's code folder was left"


SHIP = """
import os, signal, sys, types
from pubsub_spec.conformance.spark_session import ship_code
from pubsub_spec.conformance.supervisor import install_handlers

spark = types.SimpleNamespace(sparkContext=types.SimpleNamespace(addPyFile=lambda p: None))
install_handlers()
print(ship_code(spark), flush=True)
if sys.argv[1] == "raise":
    raise RuntimeError("a failing run")
if sys.argv[1] == "term":
    os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.mark.parametrize("end", ["exit", "raise", "term"])
def test_sparks_code_folder_goes_however_the_process_ends(tmp_path: Path, end: str) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-c", SHIP, end], env=env, capture_output=True,
                       text=True, timeout=60)  # fmt: skip
    zip_path = Path(r.stdout.strip())
    assert zip_path.parent.parent == tmp_path, r.stderr
    assert r.returncode == {"exit": 0, "raise": 1, "term": -signal.SIGTERM}[end], r.stderr
    assert not list(tmp_path.glob("pubsub-spec-*")), f"{zip_path.parent} left after {end}"
