"""`pubsub-spec verify --steps` (docs/steps.md; PROTOCOL.md, "Steps"): the reference passes every
step vector, in process and as a program over the process protocol; a mutated handler fails,
named with the first differing field; unsupported handlers are reported as such; the step
vectors travel in the `vectors export` kit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pubsub_spec.cli import main as cli
from pubsub_spec.conformance.protocol import (
    ProtocolError,
    StepOk,
    StepsInitOk,
    parse_step_reply,
)
from pubsub_spec.conformance.steps import systems
from pubsub_spec.conformance.steps.runner import Builtin, Program, overall, run_steps, summarize
from pubsub_spec.conformance.steps.thesis import ThesisSteps
from pubsub_spec.conformance.steps.vectors import load
from pubsub_spec.properties.thesis.mutants import NoJumpBack

PROGRAM = f"{sys.executable} -m pubsub_spec.conformance.steps.program"


def test_the_reference_passes_every_step_vector(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["verify", "--steps"]) == 0
    out = capsys.readouterr().out
    assert "reference: steps pass" in out and " 0 fail" in out
    for name in ("thesis", "lbdd"):
        for h in systems()[name].handlers:
            assert f"{name}/{h.name}" in out


def test_a_mutated_handler_fails_naming_the_handler_and_the_field() -> None:
    """The project's mutant NoJumpBack (a region probe for an absent node is dropped, not sent
    back up, thesis Program 3.3 line 53) breaks the ProbePub handler (and ProbePubMulticast,
    which hands the probes it is home for to it, Program 3.4) and no other."""
    mutated = {**systems(), "thesis": ThesisSteps(NoJumpBack)}
    summaries = summarize(run_steps(Builtin("no-jump-back", mutated), load()))
    failed = {(s.system, s.handler): s for s in summaries if s.failed}
    assert set(failed) == {("thesis", "ProbePub"), ("thesis", "ProbePubMulticast")}
    first = failed[("thesis", "ProbePub")].first_failure
    assert first is not None and first.detail == "sends[0]"  # the jump-back probe is missing
    assert not any(
        n["bits"] == first.vector.input["target"] for n in first.vector.pre["node"]["nodes"]
    )
    assert overall(summaries) == "fail"


def test_the_program_passes_and_its_mutant_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["verify", "--steps", "--impl", PROGRAM]) == 0
    capsys.readouterr()
    mutant = f"{PROGRAM} --mutant thesis-leaf-update-not-forwarded"
    report = tmp_path / "steps.json"
    assert cli(["verify", "--steps", "--impl", mutant, "--json", str(report)]) == 1
    out = capsys.readouterr().out
    body = json.loads(report.read_text())
    assert body["exit_code"] == 1 and body["verdict"] == "fail"
    (failed,) = [h for h in body["handlers"] if h["verdict"] == "fail"]
    assert (failed["system"], failed["handler"]) == ("thesis", "LeafUpdate")
    assert failed["first_failure"]["field"] == "sends[0]"
    line = next(x for x in out.splitlines() if x.startswith("thesis/LeafUpdate"))
    assert "fail" in line and ": sends[0]" in line
    assert all("fail" not in x for x in out.splitlines() if x.startswith("lbdd/"))


def test_unsupported_handlers_are_reported_not_failed(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["verify", "--steps", "--impl", f"{PROGRAM} --systems lbdd"]) == 0
    out = capsys.readouterr().out
    assert "thesis/ProbeSub" in out and "unsupported" in out
    assert "lbdd/EventDelivery               pass" in out


def test_a_program_that_breaks_down_fails_the_rest(tmp_path: Path) -> None:
    script = tmp_path / "bad.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'init':\n"
        "        ok = {'type': 'init_ok', 'steps': {'lbdd': ['buckets']}}\n"
        "        print(json.dumps(ok), flush=True)\n"
        "    elif m['type'] == 'step':\n"
        "        print('garbage', flush=True)\n"
    )
    results = run_steps(Program(f"{sys.executable} {script}", timeout=5), load(only=("lbdd",)))
    fails = [r for r in results if r.status == "fail"]
    assert fails and "bad reply" in fails[0].detail and "not JSON" in fails[0].detail
    assert all(r.status == "unsupported" for r in results if r.vector.handler != "buckets")


def test_step_replies_are_parsed_strictly() -> None:
    ok = parse_step_reply('{"type":"init_ok","steps":{"lbdd":["buckets"]}}')
    assert ok == StepsInitOk({"lbdd": ("buckets",)})
    assert parse_step_reply('{"type":"step_ok","id":"x","invalid":"no"}') == StepOk(
        "x", invalid="no"
    )
    for bad in (
        '{"type":"init_ok","steps":["lbdd"]}',
        '{"type":"step_ok","id":"x","post":{}}',
        '{"type":"step_ok","id":"x","post":{},"sends":{}}',
        '{"type":"ack","seq":1}',
        "[1]",
    ):
        with pytest.raises(ProtocolError):
            parse_step_reply(bad)


def test_the_kit_carries_the_step_vectors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["vectors", "export", str(tmp_path)]) == 0
    tarball = next(tmp_path.glob("*.tar.gz"))
    capsys.readouterr()
    assert cli(["verify", "--steps", "--impl", f"{PROGRAM} --systems lbdd", str(tarball)]) == 0
    out = capsys.readouterr().out
    assert "lbdd/buckets" in out and "steps pass" in out


def test_the_go_lbdd_example_passes_the_lbdd_step_vectors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A non-Python implementation: conformance/examples/go-lbdd answers the steps dialogue for
    the LBDD handlers (steps.go) from its own LBDD functions and passes every LBDD vector."""
    import os
    import shutil
    import subprocess

    go = shutil.which("go")
    if go is None:
        if os.environ.get("CI"):
            pytest.fail("go is missing on the CI machine: the LBDD example cannot be built")
        pytest.skip("go is not installed here: the LBDD example cannot be built")
    example = Path(__file__).parent.parent / "conformance" / "examples" / "go-lbdd"
    out = tmp_path / "go-lbdd"
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    done = subprocess.run([go, "build", "-o", str(out), "."], cwd=example, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert cli(["verify", "--steps", "--impl", str(out)]) == 0
    text = capsys.readouterr().out
    for handler in ("EventDelivery", "buckets", "path_update"):
        line = next(x for x in text.splitlines() if x.startswith(f"lbdd/{handler} "))
        assert "pass (" in line and "fail" not in line, line
    assert "thesis/ProbeSub" in text and "unsupported" in text
