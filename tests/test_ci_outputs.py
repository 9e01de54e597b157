"""CI integration: `check`, `conform` and `verify` write JUnit XML that validates
against the JUnit schema (tests/data/junit.xsd) and is read by a JUnit parser (junitparser),
and JSON with the exit code; the exit codes of docs/ci.md (0 pass, 1 failed, 2 bad input,
3 environment, with the fix named); `--only`/`--skip` select check rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import junitparser
import pytest
import xmlschema

from pubsub_spec import cmd_check, cmd_conform
from pubsub_spec.ci import Case, EnvironmentProblem, java_problem, junit_xml
from pubsub_spec.cli import main
from pubsub_spec.conformance.run_vectors import VECTORS
from pubsub_spec.properties.checks import SINGLE, CheckResult
from pubsub_spec.properties.tla import tla_binary

DATA = Path(__file__).parent / "data"
SCHEMA = xmlschema.XMLSchema(DATA / "junit.xsd")
FAULTY = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "faulty.py"


def fake_z3_rows() -> list[CheckResult]:
    return [
        CheckResult(SINGLE, "z3", "lemma holds", 1, "proof", 0.01, True, "proved"),
        CheckResult(SINGLE, "z3", "mutant rejected", 1, "proof", 0.02, True, "rejected"),
        CheckResult(SINGLE, "z3", "lemma broken", 1, "proof", 0.03, False, "counterexample: v=3"),
    ]


def have_tla() -> bool:
    try:
        tla_binary()
    except FileNotFoundError:
        if os.environ.get("CI"):
            raise
        return False
    return True


def read_junit(path: Path) -> dict[str, tuple[str, str]]:
    """{testcase name: (outcome, message)} through junitparser, after schema validation."""
    SCHEMA.validate(str(path))
    cases: dict[str, tuple[str, str]] = {}
    for suite in junitparser.JUnitXml.fromfile(str(path)):
        for case in suite:
            results = list(case.result)
            outcome = type(results[0]).__name__.lower() if results else "passed"
            message = (results[0].message or "") if results else ""
            cases[case.name] = (outcome, message)
    return cases


def test_check_junit_and_json_carry_each_row_and_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cmd_check, "_z3_rows", fake_z3_rows)
    only = "z3,tla:MCCutoffRemap_OpenLast" if have_tla() else "z3"
    junit, js = tmp_path / "check.xml", tmp_path / "check.json"
    code = main(["check", "--only", only, "--junit", str(junit), "--json", str(js)])
    assert code == 1, capsys.readouterr().out
    cases = read_junit(junit)
    assert cases["z3: lemma holds"] == ("passed", "")
    assert cases["z3: lemma broken"] == ("failure", "counterexample: v=3")
    if "tla" in only:
        assert cases["TLA+ (tla-checker): MCCutoffRemap_OpenLast"][0] == "passed"
    data = json.loads(js.read_text())
    assert data["command"] == "check" and data["exit_code"] == 1
    assert len(data["rows"]) == len(cases) and not data["environment_problems"]
    assert [r["ok"] for r in data["rows"] if r["section"] == "z3"] == [True, True, False]


def test_only_and_skip_select_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cmd_check, "_z3_rows", fake_z3_rows)
    js = tmp_path / "c.json"
    assert main(["check", "--only", "z3", "--skip", "z3:*broken", "--json", str(js)]) == 0
    assert [r["name"] for r in json.loads(js.read_text())["rows"]] == [
        "lemma holds",
        "mutant rejected",
    ]
    # a glob on the invariant, any section; a skipped section is not run at all
    assert main(["check", "--only", "*:single delivery*", "--skip", "tla,hypothesis,z3:*broken",
                 "--json", str(js)]) == 0  # fmt: skip
    assert {r["section"] for r in json.loads(js.read_text())["rows"]} == {"z3"}
    capsys.readouterr()
    assert main(["check", "--only", "z3:no-such-row"]) == 2
    assert "select no check row" in capsys.readouterr().out
    assert main(["check", "--skip", "nope"]) == 2


def test_output_file_in_a_missing_folder_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as e:
        main(["check", "--only", "z3", "--junit", str(tmp_path / "no" / "x.xml")])
    assert e.value.code == 2


def test_a_missing_tla_is_an_environment_problem_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    problem = EnvironmentProblem("tla (crates.io tla-checker) is not installed", "cargo install x")
    monkeypatch.setattr(cmd_check, "tla_problem", lambda: problem)
    junit = tmp_path / "c.xml"
    code = main(["check", "--only", "tla:MCCutoffRemap_OpenLast", "--junit", str(junit)])
    out = capsys.readouterr().out
    assert code == 3 and "environment problem: tla" in out and "fix: cargo install x" in out
    [(outcome, message)] = read_junit(junit).values()
    assert outcome == "error" and "cargo install x" in message
    # a real failure beside it is the news: exit 1
    monkeypatch.setattr(cmd_check, "_z3_rows", fake_z3_rows)
    assert main(["check", "--only", "z3,tla:MCCutoffRemap_OpenLast"]) == 1


def test_conform_without_java_exits_3_before_spark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    problem = EnvironmentProblem("Java is not installed (Spark needs Java 17+)", "apt-get x")
    monkeypatch.setattr(cmd_conform, "java_problem", lambda: problem)
    junit, js = tmp_path / "c.xml", tmp_path / "c.json"
    code = main(["conform", "--out", str(tmp_path / "o"), "--junit", str(junit), "--json", str(js)])
    assert code == 3 and "fix: apt-get x" in capsys.readouterr().err
    assert read_junit(junit) == {"spark": ("error", str(problem))}
    assert json.loads(js.read_text())["exit_code"] == 3
    assert main(["conform", "--generators", "nope"]) == 2


def test_java_is_looked_for_and_its_version_read(tmp_path: Path) -> None:
    assert java_problem({"PATH": str(tmp_path)}) is not None  # no java at all
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    for banner, ok in (('openjdk version "11.0.2"', False), ('java version "1.8.0_1"', False),
                       ('openjdk version "17.0.9" 2023-10-17', True)):  # fmt: skip
        java.write_text(f"#!/bin/sh\necho '{banner}' >&2\n")
        java.chmod(0o755)
        p = java_problem({"JAVA_HOME": str(tmp_path)})
        assert (p is None) == ok, (banner, p)
        assert p is None or "openjdk-17" in p.fix


def test_verify_junit_names_each_trace_and_why_it_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces = [str(VECTORS / "churn-small-0000.ndjson"), str(VECTORS / "zipf-tiny-0000.ndjson")]
    junit, js = tmp_path / "v.xml", tmp_path / "v.json"
    impl = f"{sys.executable} {FAULTY} --mode drop"
    code = main(["verify", "--impl", impl, "--junit", str(junit), "--json", str(js), *traces])
    assert code == 1, capsys.readouterr().out
    cases = read_junit(junit)
    assert set(cases) == {"churn-small-0000", "zipf-tiny-0000"}
    assert all(o == "failure" and "1 missing: (e" in m for o, m in cases.values()), cases
    data = json.loads(js.read_text())
    assert data["exit_code"] == 1 and data["implementations"][0]["fail"] == 2
    with pytest.raises(SystemExit) as e:
        main(["verify", "--builtin", "nope"])
    assert e.value.code == 2
    assert main(["verify", str(tmp_path / "missing")]) == 2


def test_junit_writer_escapes_what_xml_cannot_hold(tmp_path: Path) -> None:
    text = junit_xml("x", [Case("s", "c", "n <&>\x01", 0.5, "failed", 'bad "\x00" <x>')])
    (tmp_path / "j.xml").write_text(text)
    assert read_junit(tmp_path / "j.xml") == {"n <&>?": ("failure", 'bad "?" <x>')}


def test_the_schema_accepts_pytests_own_junit_and_rejects_a_broken_report(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "import pytest\ndef test_a(): pass\ndef test_b(): assert 0\n"
        "def test_c(): pytest.skip('why')\n"
    )
    out = tmp_path / "pytest.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         f"--junitxml={out}", str(tmp_path / "test_x.py")],
        cwd=tmp_path, capture_output=True, check=False,
    )  # fmt: skip
    assert set(read_junit(out).values()) >= {("passed", ""), ("skipped", "why")}
    broken = out.read_text().replace('failures="1"', 'failures="one"')
    (tmp_path / "broken.xml").write_text(broken)
    assert not SCHEMA.is_valid(str(tmp_path / "broken.xml"))
    nameless = junit_xml("x", [Case("s", "c", "n", 0.0, "passed")]).replace(' name="n"', "")
    (tmp_path / "nameless.xml").write_text(nameless)
    assert not SCHEMA.is_valid(str(tmp_path / "nameless.xml"))
