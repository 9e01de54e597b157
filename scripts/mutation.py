"""Mutation testing of reference/ and of the z3 lemma formulations (issue 17; docs/mutation.md).

    .venv/bin/python scripts/mutation.py                 # every module in MODULES, in order
    .venv/bin/python scripts/mutation.py properties/lemmas.py reference/common/matching.py
    .venv/bin/python scripts/mutation.py --list          # the modules and their test selections
    .venv/bin/python scripts/mutation.py --report-only   # print the kept sessions, run nothing
    .venv/bin/python scripts/mutation.py --survivors-only  # re-test survivors, leave pending

The tool is cosmic-ray (PyPI `cosmic-ray`), run with its `local` distributor: one worker, one
mutant at a time, each mutant tested by a fresh `pytest -p no:xdist -x -q` over the module's fixed
test selection (MODULES). cosmic-ray mutates a file in place and restores it; to keep the shared
checkout untouched while other people run tests, the script first copies the work tree (the files
`git ls-files -co --exclude-standard` names, symlinks kept as symlinks) to `--workdir`
(default out/mutation/tree, git-ignored) and mutates the copy's real files `reference/...`,
`properties/...`. The tests import them as `pubsub_spec.reference...` through the copy's own
symlinks (PYTHONPATH = the copy, ahead of the editable install); `check_namespace` proves it
before any mutant runs, and cosmic-ray's baseline (unmutated tests must pass) runs first.

Reproducible: a fixed module list, a fixed test selection per module, a fixed operator set
(KEPT_OPERATORS), Hypothesis' derandomized `ci` profile; the per-mutant timeout (TIMEOUT) is a
safety net only (a mutant that loops forever counts as killed). A session is kept per module in
the workdir and resumed when the module and its tests are unchanged, so an interrupted run
continues where it stopped. Survivors judged equivalent are listed in EQUIVALENT with the argument;
the score is killed / (mutants - equivalent).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TIMEOUT = 900.0  # seconds per mutant: a safety net against endless loops, never a verdict tool
# Per test process: CPU seconds (the heaviest selection, properties/lemmas.py's, spends under 60)
# and address space, so that a mutant looping or allocating forever is killed by the kernel
# (and counted killed) instead of holding a shared core or memory. Safety nets, like TIMEOUT.
LIMITS = "prlimit --cpu=240 --as=4000000000"
PYTEST = "-m pytest -p no:xdist -p no:cacheprovider -x -q"

# module (real path) -> its fast test selection (pytest node ids / files, run with -x).
MODULES: dict[str, tuple[str, ...]] = {
    "reference/common/matching.py": (
        "tests/test_mutation_kills.py",
        "tests/test_common_validation.py",
    ),
    "reference/common/oracle.py": ("tests/test_mutation_kills.py",),
    "reference/thesis/tree.py": (
        "tests/test_mutation_kills.py",
        "tests/test_thesis_behaviour.py",
    ),
    "reference/thesis/points.py": (
        "tests/test_mutation_kills.py",
        "tests/test_thesis_cutoff.py",
        "tests/test_thesis_behaviour.py",
    ),
    "reference/thesis/cutoff.py": (
        "tests/test_mutation_kills.py",
        "tests/test_thesis_cutoff.py",
        "tests/test_z3_lemmas.py::test_remap_points_are_the_reference_segments",
    ),
    "properties/lemmas.py": (
        "tests/test_mutation_kills_lemmas.py",
        # the two tests that re-run every lemma / every mutant once more are left out
        "tests/test_z3_lemmas.py",
        "-k",
        "'not test_every_lemma_family_has_a_mutant and not test_run_all_covers_every_invariant'",
        "tests/test_properties_strength.py",
    ),
    "reference/lbdd/algorithms.py": ("tests/test_lbdd.py", "tests/test_lbdd_views.py"),
}

# The operator set (selective mutation): for each arithmetic operator one replacement, for each
# comparison its boundary shift and its negation, and every non-binary cosmic-ray operator except
# VariableReplacer/VariableInserter (random choices, not reproducible). cosmic-ray's full
# cross product (every operator by every other, bitwise ones on numbers) is 3-4 times larger and
# its extra mutants are almost all killed at once by a TypeError: not worth one core's time.
KEPT_OPERATORS: tuple[str, ...] = (
    *(
        f"core/ReplaceBinaryOperator_{a}_{b}"
        for a, b in (
            ("Add", "Sub"),
            ("Sub", "Add"),
            ("Mul", "Div"),
            ("Div", "Mul"),
            ("Div", "FloorDiv"),
            ("FloorDiv", "Div"),
            ("Mod", "FloorDiv"),
            ("Pow", "Mul"),
            ("LShift", "RShift"),
            ("RShift", "BitAnd"),  # z3 wrapper: implication -> conjunction
            ("BitAnd", "BitOr"),
            ("BitOr", "BitAnd"),
            ("BitXor", "BitOr"),
        )
    ),
    *(
        f"core/ReplaceComparisonOperator_{a}_{b}"
        for a, b in (
            ("Lt", "LtE"),
            ("Lt", "GtE"),
            ("LtE", "Lt"),
            ("LtE", "Gt"),
            ("Gt", "GtE"),
            ("Gt", "LtE"),
            ("GtE", "Gt"),
            ("GtE", "Lt"),
            ("Eq", "NotEq"),
            ("NotEq", "Eq"),
            ("Is", "IsNot"),
            ("IsNot", "Is"),
        )
    ),
    "core/ReplaceUnaryOperator_.*",
    "core/AddNot",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/ReplaceBreakWithContinue",
    "core/ReplaceContinueWithBreak",
    "core/ExceptionReplacer",
    "core/NumberReplacer",
    "core/RemoveDecorator",
    "core/ZeroIterationForLoop",
)

# (module, function) -> why mutants inside it are outside the scope (not run, not in the score).
OUT_OF_SCOPE: dict[tuple[str, str], str] = {
    ("properties/lemmas.py", "table"): "presentation: column widths of the printed table",
    ("properties/lemmas.py", "main"): "presentation: printing and the exit code of the CLI",
}

# (module, operator, line, column) -> why the mutant cannot be told apart from the original.
_H_UNREAD = (
    "h is read only by segments(lo, hi, c, h), which returns the one closed segment without "
    "reading h when c is None or hi - lo <= c; h is drawn exactly in the other case"
)
_ANNOTATION = (
    "the mutated `|` is inside a type annotation; with `from __future__ import annotations` "
    "(PEP 563) annotations are strings never evaluated at run time, and nothing calls "
    "typing.get_type_hints on this function"
)
EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/thesis/cutoff.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 44, 47): _ANNOTATION,
    ("properties/lemmas.py", "core/ReplaceComparisonOperator_Gt_GtE", 269, 62): "Remap's premise "
    "0 < h < c weakened to 0 <= h < c admits no new model: h = 0 makes the count premise "
    "(n-1) h < u - l <= n h require u - l <= 0, against u - l > c > h = 0; the conjunction of "
    "premises, hence every Remap lemma, is unchanged",
    ("properties/lemmas.py", "core/ReplaceComparisonOperator_Lt_LtE", 460, 69): "the cover "
    "lemma's premise j < k weakened to j <= k adds only j = k, where holds(j) (which contains "
    "j < k) is false, so the conclusion 'not in two slices' holds there trivially: the lemma "
    "proves the same fact about the k slices",
    ("properties/lemmas.py", "core/AddNot", 308, 26): "Remap.witness with its two branches "
    "swapped: both compute floor((v - l)/h). z3typed's `//` on reals is to_int(a / b), the real "
    "branch's to_int(q); on integers it is SMT-LIB div, equal to floor of the real quotient for "
    "a positive divisor, and 0 < h is a premise of the only lemma using the witness",
    ("reference/thesis/points.py", "core/NumberReplacer", 60, 21): "the initial h (0 -> 1 or "
    "-1) is never read: " + _H_UNREAD,
    ("reference/thesis/points.py", "core/ReplaceComparisonOperator_Gt_GtE", 61, 53): "at hi - "
    "lo = c the mutant also draws h, but " + _H_UNREAD + "; the draw comes from the point's own "
    "generator points_rng(seed, sub id, seq), which nothing reads afterwards",
}


@dataclass
class Mutant:
    module: str
    operator: str
    line: int
    col: int
    occurrence: int
    outcome: str  # killed / survived / incompetent / skipped / pending
    diff: str

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.module, self.operator, self.line, self.col)


@dataclass
class ModuleResult:
    module: str
    tests: tuple[str, ...]
    mutants: list[Mutant] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for m in self.mutants if m.outcome == outcome)

    @property
    def run(self) -> list[Mutant]:
        return [m for m in self.mutants if m.outcome != "skipped"]

    @property
    def equivalent(self) -> list[Mutant]:
        return [m for m in self.mutants if m.outcome == "survived" and m.key in EQUIVALENT]

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m in self.mutants if m.outcome == "survived" and m.key not in EQUIVALENT]

    @property
    def score(self) -> float:
        done = [m for m in self.run if m.outcome != "pending"]
        denominator = len(done) - len(self.equivalent)
        killed = sum(1 for m in done if m.outcome in ("killed", "incompetent"))
        return 100.0 * killed / denominator if denominator else 0.0


def tool(name: str) -> str:
    return str(BIN / name)


def copy_tree(dst: Path) -> None:
    """Refresh the copy: the checkout's tracked and untracked-but-not-ignored files."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    wanted = {p for p in listed.split("\0") if p}
    for rel in sorted(wanted):
        src, out = ROOT / rel, dst / rel
        if not src.exists() and not src.is_symlink():
            continue  # deleted in the work tree, still in the index
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            if out.is_symlink() or out.exists():
                if out.is_symlink() and os.readlink(out) == os.readlink(src):
                    continue
                out.unlink() if out.is_symlink() or out.is_file() else shutil.rmtree(out)
            out.symlink_to(os.readlink(src))
        elif src.is_file():
            if out.is_file() and out.read_bytes() == src.read_bytes():
                continue
            shutil.copy2(src, out)


def env_for(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(work)
    env["HYPOTHESIS_PROFILE"] = "ci"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def check_namespace(work: Path, module: str) -> None:
    """The tests must import the copy's real file, the one cosmic-ray mutates."""
    name = "pubsub_spec." + module.removesuffix(".py").replace("/", ".")
    code = f"import {name} as m, os; print(os.path.realpath(m.__file__))"
    got = subprocess.run(
        [sys.executable, "-c", code],
        cwd=work,
        env=env_for(work),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    want = os.path.realpath(work / module)
    if got != want:
        raise SystemExit(f"namespace check failed: {name} is {got}, not the mutated {want}")


def fingerprint(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()


def skip_out_of_scope(db: Path, module: str) -> None:
    names = [fn for (mod, fn) in OUT_OF_SCOPE if mod == module]
    if not names:
        return
    marks = ",".join("?" * len(names))
    with sqlite3.connect(db) as con:
        con.execute(
            "INSERT INTO work_results (worker_outcome, output, test_outcome, diff, job_id) "
            "SELECT 'SKIPPED', 'out of scope', NULL, NULL, job_id FROM mutation_specs "
            f"WHERE definition_name IN ({marks}) "
            "AND job_id NOT IN (SELECT job_id FROM work_results)",
            names,
        )


def retest_survivors(work: Path, db: Path, command: str, env: dict[str, str]) -> None:
    """The tests changed, the module did not: killed mutants stay killed, each survivor is tested
    again at once (cosmic-ray's `exec` would mix them, in random order, with the pending ones)."""
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT s.job_id, s.module_path, s.operator_name, s.occurrence "
            "FROM mutation_specs s JOIN work_results r USING (job_id) "
            "WHERE r.test_outcome = 'SURVIVED'"
        ).fetchall()
    for job_id, module_path, operator, occurrence in rows:
        out = subprocess.run(
            [
                tool("cosmic-ray"),
                "mutate-and-test",
                module_path,
                operator,
                str(occurrence),
                command,
            ],
            cwd=work,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        res = json.loads(out)
        with sqlite3.connect(db) as con:
            con.execute(
                "UPDATE work_results SET worker_outcome = ?, test_outcome = ?, output = ? "
                "WHERE job_id = ?",
                (
                    str(res["worker_outcome"]).upper().replace("-", "_"),
                    str(res["test_outcome"]).upper() if res["test_outcome"] else None,
                    res.get("output"),
                    job_id,
                ),
            )
        print(
            f"re-tested {module_path} {operator} #{occurrence}: {res['test_outcome']}", flush=True
        )


def run_module(
    work: Path, module: str, tests: tuple[str, ...], execute: bool = True, pending: bool = True
) -> ModuleResult:
    state = work / ".mutation"
    state.mkdir(exist_ok=True)
    stem = module.removesuffix(".py").replace("/", "_")
    cfg, db, stamp = state / f"{stem}.toml", state / f"{stem}.sqlite", state / f"{stem}.stamp"
    command = f"{LIMITS} {sys.executable} {PYTEST} {' '.join(tests)}"
    all_ops = subprocess.run(
        [tool("cosmic-ray"), "operators"], check=True, capture_output=True, text=True
    ).stdout.split()
    kept = re.compile("|".join(f"(?:{k})$" for k in KEPT_OPERATORS))
    excluded = [re.escape(op) + "$" for op in all_ops if not kept.match(op)]
    cfg.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {TIMEOUT}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = {json.dumps(excluded)}\n"
    )
    env = env_for(work)
    # the mutants depend on the module and the operator set; the verdicts also on the tests
    fp_mutants = fingerprint(
        [module.encode(), json.dumps(KEPT_OPERATORS).encode(), (work / module).read_bytes()]
    )
    fp_tests = fingerprint(
        [command.encode(), str(TIMEOUT).encode()]
        + [(work / t.split("::")[0]).read_bytes() for t in tests if t.startswith("tests/")]
    )
    old = stamp.read_text().split() if stamp.exists() and db.exists() else []
    if not execute:
        if not db.exists():
            raise SystemExit(f"no session for {module} in {state}")
    elif old[:1] != [fp_mutants]:
        db.unlink(missing_ok=True)
        subprocess.run(
            [tool("cosmic-ray"), "init", str(cfg), str(db)], cwd=work, env=env, check=True
        )
        subprocess.run(
            [tool("cr-filter-operators"), str(db), str(cfg)], cwd=work, env=env, check=True
        )
        skip_out_of_scope(db, module)
    if execute and old != [fp_mutants, fp_tests]:
        base = subprocess.run([tool("cosmic-ray"), "baseline", str(cfg)], cwd=work, env=env)
        if base.returncode != 0:
            raise SystemExit(f"baseline failed for {module}: its tests fail unmutated")
        if old[:1] == [fp_mutants]:
            retest_survivors(work, db, command, env)
        stamp.write_text(f"{fp_mutants} {fp_tests}")
    print(f"== {module}: mutating with tests {' '.join(tests)}", flush=True)
    if execute and pending:
        subprocess.run(
            [tool("cosmic-ray"), "exec", str(cfg), str(db)], cwd=work, env=env, check=True
        )
    dump = subprocess.run(
        [tool("cosmic-ray"), "dump", str(db)],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = ModuleResult(module, tests)
    for line in dump.splitlines():
        item, res = json.loads(line)
        (mut,) = item["mutations"]
        outcome = "pending"
        diff = ""
        if res is not None:
            diff = res.get("diff") or ""
            outcome = (
                "skipped"
                if res["worker_outcome"] == "skipped"
                else (res["test_outcome"] or res["worker_outcome"])
            )
        result.mutants.append(
            Mutant(
                module,
                mut["operator_name"],
                mut["start_pos"][0],
                mut["start_pos"][1],
                mut["occurrence"],
                outcome,
                diff,
            )
        )
    result.mutants.sort(key=lambda m: (m.line, m.col, m.operator))
    restored = (work / module).read_bytes() == (ROOT / module).read_bytes()
    if execute and not restored:
        raise SystemExit(f"{module} in the copy differs from the checkout after the run")
    return result


def diff_lines(diff: str) -> str:
    """The changed lines of a unified diff, '-old' then '+new'."""
    return " | ".join(
        ln.strip()
        for ln in diff.splitlines()
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )


def report(results: list[ModuleResult]) -> str:
    out = [
        "| module | mutants | killed | survived | equivalent | pending | score |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        run = r.run
        killed = r.count("killed") + r.count("incompetent")
        out.append(
            f"| {r.module} | {len(run)} | {killed} | {len(r.survivors)} | "
            f"{len(r.equivalent)} | {r.count('pending')} | {r.score:.1f} % |"
        )
    out.append("")
    for r in results:
        for m in r.survivors:
            out.append(f"SURVIVED {m.module}:{m.line}:{m.col} {m.operator}  {diff_lines(m.diff)}")
        for m in r.equivalent:
            out.append(
                f"EQUIVALENT {m.module}:{m.line}:{m.col} {m.operator}  "
                f"{diff_lines(m.diff)}  -- {EQUIVALENT[m.key]}"
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("modules", nargs="*", help="real paths, e.g. reference/common/matching.py")
    ap.add_argument("--workdir", type=Path, default=ROOT / "out" / "mutation" / "tree")
    ap.add_argument("--list", action="store_true", help="print modules and test selections")
    ap.add_argument(
        "--report-only", action="store_true", help="print the sessions as they are, run nothing"
    )
    ap.add_argument(
        "--survivors-only",
        action="store_true",
        help="re-test the survivors (after a test change), leave pending mutants pending",
    )
    args = ap.parse_args(argv)
    modules = args.modules or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        ap.error(f"no test selection for {unknown}; known: {list(MODULES)}")
    if args.list:
        for m in modules:
            print(m, " ".join(MODULES[m]))
        return 0
    work: Path = args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if not args.report_only:  # never touch a copy that a running session may be mutating
        copy_tree(work)
    results = []
    for m in modules:
        if not args.report_only:
            check_namespace(work, m)
        results.append(
            run_module(
                work, m, MODULES[m], execute=not args.report_only, pending=not args.survivors_only
            )
        )
        print(report(results[-1:]), flush=True)
    text = report(results)
    print("\n== summary\n" + text)
    (work.parent / "report.md").write_text(text + "\n")
    return 0 if all(not r.survivors and not r.count("pending") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
