"""The protocol fault kit (conformance/examples/protocol_faults.py): each fault delivers exactly
the right events and is caught at the protocol level for its own rule; the un-faulted program
conforms for every claimable system; over the process protocol the same holds; the Go and Rust
brute-force examples claiming `thesis` (PUBSUB_CLAIM) pass the delivery level and deviate."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pubsub_spec.conformance.adapter import run_outside
from pubsub_spec.conformance.examples.protocol_faults import (
    ENV,
    FAULTS,
    GENERATORS_OF,
    main,
    observed_run,
    traces_for,
)
from pubsub_spec.conformance.observed import (
    CONFORMS,
    DEVIATES,
    NOT_REPORTED,
    judge_protocol,
    protocol_verdict,
    reference_run,
)
from pubsub_spec.conformance.protocol_rules import CLAIMABLE, FAMILY_RULES, generic
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.sim.run import compare

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "conformance" / "examples" / "protocol_faults.py"
EXAMPLES = ROOT / "conformance" / "examples"


def _delivers_right(trace: Trace, got: list[Delivery]) -> None:
    cmp = compare(expected_deliveries(trace), got)
    assert cmp.agree and cmp.expected > 0, cmp.summary()


def test_the_kit_has_at_least_twelve_faults_each_with_an_existing_rule() -> None:
    assert len(FAULTS) >= 12
    rules = {r.id for r in generic.RULES} | {r.id for rs in FAMILY_RULES.values() for r in rs}
    for f in FAULTS.values():
        assert f.system in CLAIMABLE, f.name
        assert f.rule in rules, f"{f.name}: rule {f.rule} does not exist"
        own = {r.id for r in generic.RULES} | {r.id for r in FAMILY_RULES[f.system]}
        assert f.rule in own, f"{f.name}: {f.rule} is not a rule of {f.system}"
    # every family is exercised, not only the generic rules
    assert {f.rule.partition("/")[0] for f in FAULTS.values()} >= {
        "generic", "thesis", "lbdd", "kyra", "siena", "mcgroups", "octopia", "tid", "tam",
        "tam-basic",
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_each_fault_delivers_right_and_deviates_for_its_own_rule(name: str) -> None:
    fault = FAULTS[name]
    for trace in traces_for(fault.system, 1):
        run = observed_run(fault.system, fault, trace)
        _delivers_right(trace, list(run.deliveries))
        verdict = judge_protocol(run, reference_run(fault.system, trace))
        assert verdict.status == DEVIATES, (trace.trace_id, verdict.describe())
        assert verdict.rule == fault.rule, (trace.trace_id, verdict.describe())


@pytest.mark.parametrize("claim", sorted(GENERATORS_OF))
def test_the_unfaulted_program_conforms(claim: str) -> None:
    trace = traces_for(claim, 1)[0]
    run = observed_run(claim, None, trace)
    _delivers_right(trace, list(run.deliveries))
    assert run.log, "the un-faulted program reports the reference's observations"
    ref = reference_run(claim, trace)
    # the same observations the built-in reports (one source of truth), op for op
    assert [(o.seq, o.obs) for o in run.log] == [(o.seq, o.obs) for o in ref.log]
    assert judge_protocol(run, ref).status == CONFORMS


def _cmd(*words: str) -> str:
    return " ".join([sys.executable, str(PROGRAM), *words])


@pytest.mark.parametrize(
    ("claim", "fault"),
    [("thesis", None), ("thesis", "broadcast"), ("lbdd", "lbdd-wrong-bucket"),
     ("kyra", "kyra-non-covering-tree"), ("octopia-snr", "octopia-sub-leaves-cluster"),
     ("tam", "scribe-join-continues")],
)  # fmt: skip
def test_over_the_process_protocol(claim: str, fault: str | None) -> None:
    trace = traces_for(claim, 1)[0]
    cmd = _cmd("--system", claim, *(["--fault", fault] if fault else []))
    out = run_outside(cmd, trace)
    assert out.verdict == "ok", out.reason
    assert out.protocol == 2 and out.system == claim
    _delivers_right(trace, list(out.deliveries))
    verdict = protocol_verdict("cmd:" + cmd, trace)
    if fault is None:
        assert verdict.status == CONFORMS, verdict.describe()
    else:
        assert (verdict.status, verdict.rule) == (DEVIATES, FAULTS[fault].rule), verdict.describe()


def test_the_fault_can_be_chosen_by_environment() -> None:
    trace = traces_for("thesis", 1)[0]
    verdict = protocol_verdict(f"cmd:{ENV}=merged-leaves " + _cmd("--system", "thesis"), trace)
    assert verdict.rule == "thesis/growth-only", verdict.describe()


def test_an_unknown_fault_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(SystemExit) as stop:
        main(["--fault", "no-such-fault"])
    assert stop.value.code == 2
    assert main(["--list"]) == 0
    assert "broadcast" in capsys.readouterr().out


# -- the Go and Rust brute force claiming a system they do not implement -----------------------
def _tool(name: str) -> str:
    from shutil import which

    cargo_bin = Path.home() / ".cargo" / "bin" / name
    found = which(name) or (str(cargo_bin) if cargo_bin.exists() else None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is missing on the CI machine: the example cannot be built")
        pytest.skip(f"{name} is not installed here")
    return found


def _build(language: str, tmp: Path) -> str:
    if language == "go":
        go = _tool("go")
        binary = tmp / "go-bruteforce"
        env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
        subprocess.run([go, "build", "-o", str(binary), "."], cwd=EXAMPLES / "go-bruteforce",
                       check=True, env=env, capture_output=True)  # fmt: skip
        return str(binary)
    cargo = _tool("cargo")
    target = tmp / "target"
    subprocess.run([cargo, "build", "--offline", "--quiet", "--target-dir", str(target)],
                   cwd=EXAMPLES / "rust-bruteforce", check=True, capture_output=True)  # fmt: skip
    return str(target / "debug" / "pubsub-bruteforce")


@pytest.mark.parametrize("language", ["go", "rust"])
def test_bruteforce_claiming_thesis_passes_delivery_and_deviates(
    language: str, tmp_path: Path
) -> None:
    binary = _build(language, tmp_path)
    trace = traces_for("thesis", 1)[0]
    claimed = run_outside(f"PUBSUB_CLAIM=thesis {binary}", trace)
    assert claimed.verdict == "ok" and claimed.protocol == 2 and claimed.system == "thesis"
    _delivers_right(trace, list(claimed.deliveries))
    verdict = protocol_verdict(f"cmd:PUBSUB_CLAIM=thesis {binary}", trace)
    assert (verdict.status, verdict.rule) == (DEVIATES, "generic/reported"), verdict.describe()
    # without the switch: a version-1 program, delivery level only
    plain = run_outside(binary, trace)
    assert plain.verdict == "ok" and plain.protocol != 2
    _delivers_right(trace, list(plain.deliveries))
    assert protocol_verdict(f"cmd:{binary}", trace).status == NOT_REPORTED


def test_the_readme_lists_every_fault_with_its_rule() -> None:
    text = (ROOT / "conformance" / "README.md").read_text()
    for f in FAULTS.values():
        assert f"| `{f.name}` | `{f.system}` | `{f.rule}` |" in text, f.name


def test_verify_level_protocol_names_the_rule_of_the_broadcasting_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pubsub_spec.cli import main as cli
    from pubsub_spec.conformance.traceio import write_trace

    trace = traces_for("thesis", 1)[0]
    write_trace(trace, tmp_path / f"{trace.trace_id}.ndjson")
    broadcast = _cmd("--fault", "broadcast")
    assert cli(["verify", "--level", "protocol", "--impl", broadcast, str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "pass (1/1 traces pass" in out and "deviates (generic/cost-envelope)" in out, out
    assert cli(["verify", "--impl", broadcast, str(tmp_path)]) == 0  # the delivery level only
    capsys.readouterr()
    assert cli(["verify", "--level", "protocol", "--impl", _cmd(), str(tmp_path)]) == 0
    assert "protocol: conforms" in capsys.readouterr().out
