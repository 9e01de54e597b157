"""Mutation testing of reference/ and of the z3 lemma formulations (docs/mutation.md).

    .venv/bin/python scripts/mutation.py                 # every module in MODULES, in order
    .venv/bin/python scripts/mutation.py properties/lemmas.py reference/common/matching.py
    .venv/bin/python scripts/mutation.py --fraction 0.1 --workers 2   # a 10 % sample, 2 at once
    .venv/bin/python scripts/mutation.py --list          # the modules and their test selections
    .venv/bin/python scripts/mutation.py --report-only   # print the kept sessions, run nothing
    .venv/bin/python scripts/mutation.py --survivors-only  # re-test survivors, leave pending

The tool is cosmic-ray (PyPI `cosmic-ray`), run with its `local` distributor: one mutant at a
time per worker, each mutant tested by a fresh `pytest -p no:xdist -x -q` over the module's fixed
test selection (MODULES). cosmic-ray mutates a file in place and restores it; to keep the shared
checkout untouched while other people run tests, the script first copies the work tree (the files
`git ls-files -co --exclude-standard` names, symlinks kept as symlinks) to one copy per worker
(out/mutation/tree-K, git-ignored) and mutates the copy's real files `reference/...`,
`properties/...`. The tests import them as `pubsub_spec.reference...` through the copy's own
symlinks (PYTHONPATH = the copy, ahead of the editable install); `check_namespace` proves it
before any mutant runs, and cosmic-ray's baseline (unmutated tests must pass) runs first.

Reproducible: a fixed module list, a fixed test selection per module, a fixed operator set
(KEPT_OPERATORS), Hypothesis' derandomized `ci` profile; the per-mutant timeout (TIMEOUT) is a
safety net only (a mutant that loops forever counts as killed). A session is kept per module in
out/mutation/sessions and resumed when the module and its tests are unchanged, so an interrupted
run continues where it stopped. `--fraction f` runs a uniform, reproducible sample of each
module's mutants (the first ceil(f n) in a fixed hash order; a larger f only adds) and reports
the score with its 95 % Wilson interval; `--workers K` runs K modules at once. Survivors judged
equivalent are listed in EQUIVALENT with the argument; the score is killed / (mutants run -
equivalent).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import runpy
import shutil
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
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

# Test selections (pytest node ids / files, run with -x). Every module of reference/ is in scope:
# a module gets the selection of its package (PACKAGE_TESTS), unless MODULE_TESTS names one for
# it. A selection is the package's own behaviour tests plus tests/test_mutation_kills*.py: fast
# (seconds to a minute) yet covering the rules the invariants rest on. Within a selection the
# fastest files come first: `pytest -x` stops at the first failure, so most mutants cost seconds.
_KILLS = "tests/test_mutation_kills.py"
_THESIS = (
    _KILLS,
    "tests/test_mutation_kills_thesis.py",
    "tests/test_mutation_kills_pastry.py",  # thesis/config.py, thesis/info.py
    "tests/test_thesis_behaviour.py",
    "tests/test_thesis_cutoff.py",
    "tests/test_thesis_cost_rules.py",
    "tests/test_thesis_costs.py",
    "tests/test_thesis_lnrt.py",
    "tests/test_thesis_space.py",
    "tests/test_thesis_workload.py",
    "tests/test_trace_validation.py",
)
PACKAGE_TESTS: dict[str, tuple[str, ...]] = {
    "reference/common/": (
        _KILLS,
        "tests/test_mutation_kills_common.py",
        "tests/test_common_validation.py",
        "tests/test_thesis_behaviour.py",
        "tests/test_conformance_traceio.py",
    ),
    "reference/sim/": (
        _KILLS,
        "tests/test_mutation_kills_sim.py",
        "tests/test_sim_installation.py",
        "tests/test_sim_seeds.py",
        "tests/test_mutation_kills_thesis.py",  # sizes.py: the worked size example
        "tests/test_thesis_behaviour.py",
        "tests/test_thesis_speed.py",
        "tests/test_kyra_systems.py",
        "tests/test_tam_system.py",
        "tests/test_octopia_routing.py",
    ),
    "reference/overlay/": (
        _KILLS,
        "tests/test_mutation_kills_overlay.py",
        "tests/test_mutation_kills_pastry.py",
        "tests/test_overlay_pastry.py",
        "tests/test_overlay_pastry_pns.py",
        "tests/test_overlay_scribe.py",
        "tests/test_thesis_cost_rules.py",
    ),
    "reference/thesis/": _THESIS,
    "reference/lbdd/": (
        _KILLS,
        "tests/test_mutation_kills_lbdd.py",
        "tests/test_lbdd.py",
        "tests/test_lbdd_views.py",
        "tests/test_lbdd_costs.py",
        "tests/test_lbdd_cli_transfer.py",
    ),
    "reference/kyra/": (
        _KILLS,
        "tests/test_mutation_kills_kyra.py",
        "tests/test_kyra_examples.py",
        "tests/test_kyra_zones.py",
        "tests/test_kyra_properties.py",
        "tests/test_kyra_race.py",
        "tests/test_golden_costs.py::test_costs_equal_the_golden_file",
        "tests/test_kyra_systems.py",
        "tests/test_observations_kyra.py",
    ),
    "reference/octopia/": (
        _KILLS,
        "tests/test_mutation_kills_octopia.py",
        "tests/test_octopia_civ.py",
        "tests/test_octopia_scot.py",
        "tests/test_golden_costs.py::test_costs_equal_the_golden_file",
        "tests/test_octopia_processing.py",
        "tests/test_octopia_routing.py",
        "tests/test_observations_octopia.py",
    ),
    "reference/tam/": (
        _KILLS,
        "tests/test_mutation_kills_tam.py",
        "tests/test_tam_tables.py",
        "tests/test_tam_workload.py",
        "tests/test_golden_costs.py::test_costs_equal_the_golden_file",  # what each system sends
        "tests/test_tam_system.py",
        # the observations (conformance/OBSERVATIONS.md): only they read what each send reports
        "tests/test_observations_tam.py",
    ),
    "reference/": (
        _KILLS,
        "tests/test_mutation_kills_sim.py",  # registry.py: the systems' registry
        "tests/test_layout.py",
        "tests/test_cli_systems.py",
    ),
}
MODULE_TESTS: dict[str, tuple[str, ...]] = {
    "reference/common/matching.py": (_KILLS, "tests/test_common_validation.py"),
    "reference/common/oracle.py": (_KILLS,),
    "reference/thesis/tree.py": (_KILLS, "tests/test_thesis_behaviour.py"),
    "reference/thesis/points.py": (
        _KILLS,
        "tests/test_thesis_cutoff.py",
        "tests/test_thesis_behaviour.py",
    ),
    "reference/thesis/cutoff.py": (
        _KILLS,
        "tests/test_thesis_cutoff.py",
        "tests/test_z3_lemmas.py::test_remap_points_are_the_reference_segments",
    ),
    "reference/thesis/system.py": (
        *_THESIS[:3],
        "tests/test_mutation_kills_thesis_system.py",
        *_THESIS[3:],
    ),
    "reference/thesis/substrate.py": (
        *_THESIS[:3],
        "tests/test_mutation_kills_thesis_system.py",
        *_THESIS[3:],
    ),
    # the substrate `simulate` runs: every slip in it shows as a run unlike the reference's
    "reference/thesis/substrate_fast.py": (_KILLS, "tests/test_thesis_fast.py"),
    "reference/thesis/figures.py": (
        _KILLS,
        "tests/test_mutation_kills_figures.py",
        "tests/test_mutation_kills_thesis.py",
        "tests/test_thesis_figures.py",
    ),
    # Scribe is Tam's substrate: its state changes and sends are observed through Tam's runs
    "reference/overlay/scribe.py": (
        *PACKAGE_TESTS["reference/overlay/"],
        "tests/test_mutation_kills_tam.py",
        "tests/test_golden_costs.py::test_costs_equal_the_golden_file",
        "tests/test_observations_tam.py",
    ),
    "reference/lbdd/figures.py": (
        _KILLS,
        "tests/test_mutation_kills_lbdd.py",
        "tests/test_lbdd_figures.py",
    ),
    "properties/lemmas.py": (
        "tests/test_mutation_kills_lemmas.py",
        "tests/test_z3_lemmas.py",
        "tests/test_properties_strength.py",
        # left out: the two tests that re-run every lemma / every mutant once more, and the
        # premise-necessity test of path_depth_bound (100-250 CPU seconds on its own: each
        # dropped premise of the 33-node bit-vector lemma is refuted by z3 under its rlimit)
        "-k",
        "'not test_every_lemma_family_has_a_mutant and not test_run_all_covers_every_invariant"
        " and not (test_each_premise_is_needed_or_declared_redundant and path_depth_bound)'",
    ),
}


def selection(module: str) -> tuple[str, ...]:
    if module in MODULE_TESTS:
        return MODULE_TESTS[module]
    package = max((p for p in PACKAGE_TESTS if module.startswith(p)), key=len)
    return PACKAGE_TESTS[package]


# module (real path) -> its test selection: the z3 lemma formulations and every module of
# reference/ (but the __init__.py files: a docstring each, no code).
MODULES: dict[str, tuple[str, ...]] = {
    m: selection(m)
    for m in [
        "properties/lemmas.py",  # first: its selection is the slowest, so it starts at once
        *sorted(
            str(p.relative_to(ROOT))
            for p in (ROOT / "reference").rglob("*.py")
            if p.name != "__init__.py"
        ),
    ]
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
    ("properties/lemmas.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 115, 37): _ANNOTATION,
    ("properties/lemmas.py", "core/NumberReplacer", 266, 29): "Remap's count premise "
    "(n-1) h < u - l <= n h with n >= 1 strengthened to n >= 2 removes only n = 1, which the "
    "other premises already exclude: n = 1 gives u - l <= h < c, against u - l > c; the "
    "conjunction of premises, hence every Remap lemma, is unchanged (the lemma mutants that "
    "replace 0 < h < c are still rejected: test_mutant_is_rejected passed under this mutant)",
    ("properties/lemmas.py", "core/NumberReplacer", 537, 19): "bit_length's loop started at "
    "b = 1 adds the step ite(d >= 1, 1, out) on out = ite(d = 0, 0, 1): the same function of d "
    "(0 for d = 0, 1 otherwise), so the term denotes the same bucket for every digest and every "
    "lemma built on it states the same",
    ("properties/lemmas.py", "core/NumberReplacer", 309, 33): "Remap.witness clamps "
    "floor((v - l)/h) to n - 1: `ite(fl < n - 1, fl, n - 1)` and the mutant's "
    "`ite(fl < n, fl, n - 1)` differ only at fl = n - 1, where both give n - 1",
    ("properties/lemmas.py", "core/NumberReplacer", 555, 57): "bucket_defined_check over "
    "b = 1..33 instead of 1..32: in_bucket_range(d, 33) on 32-bit vectors is false for every d "
    "(2^33 wraps to 0 and d <u 0 never holds), so the extra disjunct of 'some bucket holds', "
    "the extra pairs of 'no two buckets' and the extra implication (bit_length = 33 => false; "
    "bit_length is at most 32) change none of the three conclusions",
    ("properties/lemmas.py", "core/AddNot", 308, 26): "Remap.witness with its two branches "
    "swapped: both compute floor((v - l)/h). z3typed's `//` on reals is to_int(a / b), the real "
    "branch's to_int(q); on integers it is SMT-LIB div, equal to floor of the real quotient for "
    "a positive divisor, and 0 < h is a premise of the only lemma using the witness",
    ("reference/thesis/points.py", "core/NumberReplacer", 62, 21): "the initial h (0 -> 1 or "
    "-1) is never read: " + _H_UNREAD,
    ("reference/thesis/points.py", "core/ReplaceComparisonOperator_Gt_GtE", 63, 53): "at hi - "
    "lo = c the mutant also draws h, but " + _H_UNREAD + "; the draw comes from the point's own "
    "generator points_rng(seed, sub id, seq), which nothing reads afterwards",
}


# More equivalent mutants, one file per package of reference/ (scripts/equivalent_<pkg>.py, each
# defining EQUIVALENT in the same form), kept beside this script so that each package's
# arguments sit together.
for _extra in sorted(Path(__file__).resolve().parent.glob("equivalent_*.py")):
    _found = runpy.run_path(str(_extra))["EQUIVALENT"]
    _twice = set(_found) & set(EQUIVALENT)
    if _twice:
        raise SystemExit(f"{_extra.name}: already in EQUIVALENT: {sorted(_twice)}")
    EQUIVALENT.update(_found)

NOT_SAMPLED = "not sampled"  # the output cosmic-ray's session records for a mutant left out


def rank(module: str, operator: str, occurrence: int) -> str:
    """A mutant's place in its module's sample order: a fixed hash, so the sample at fraction f
    is the first ceil(f n) mutants in this order, reproducible, and a larger fraction only adds."""
    return hashlib.sha256(f"{module}|{operator}|{occurrence}".encode()).hexdigest()


def sample_size(fraction: float, n: int) -> int:
    return min(n, math.ceil(fraction * n - 1e-9))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 %) of a proportion k/n: the score is estimated on a uniform
    random sample of the mutants, and this says how far the module's true score can be from it."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


class ModuleFailed(Exception):
    """A module that could not be mutation-tested (no session, failing baseline, ...): reported,
    and the other modules go on."""


@dataclass
class Mutant:
    module: str
    operator: str
    line: int
    col: int
    occurrence: int
    outcome: str  # killed / survived / incompetent / skipped / unsampled / pending
    diff: str
    in_sample: bool = False  # among the first ceil(f n) of the module in `rank` order

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
    def in_scope(self) -> list[Mutant]:
        return [m for m in self.mutants if m.outcome != "skipped"]

    @property
    def run(self) -> list[Mutant]:
        return [m for m in self.in_scope if m.outcome != "unsampled"]

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
        raise ModuleFailed(f"namespace check failed: {name} is {got}, not the mutated {want}")


def fingerprint(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()


def apply_sample(db: Path, module: str, fraction: float) -> None:
    """Leave out all but the first ceil(f n) in-scope mutants in `rank` order (marked skipped with
    output NOT_SAMPLED); put back those a larger fraction now takes in. Mutants already run stay
    as they are whatever the fraction."""
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT s.job_id, s.operator_name, s.occurrence, r.worker_outcome, r.output "
            "FROM mutation_specs s LEFT JOIN work_results r USING (job_id)"
        ).fetchall()
        scope = [r for r in rows if not (r[3] == "SKIPPED" and r[4] != NOT_SAMPLED)]
        scope.sort(key=lambda r: rank(module, r[1], r[2]))
        k = sample_size(fraction, len(scope))
        taken, left = scope[:k], scope[k:]
        con.executemany(
            "DELETE FROM work_results WHERE job_id = ?",
            [(r[0],) for r in taken if r[4] == NOT_SAMPLED and r[3] == "SKIPPED"],
        )
        con.executemany(
            "INSERT INTO work_results (worker_outcome, output, test_outcome, diff, job_id) "
            "VALUES ('SKIPPED', ?, NULL, NULL, ?)",
            [(NOT_SAMPLED, r[0]) for r in left if r[3] is None],
        )


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


def prepare(
    work: Path,
    module: str,
    tests: tuple[str, ...],
    fraction: float,
    cfg: Path,
    db: Path,
    stamp: Path,
    command: str,
    env: dict[str, str],
) -> None:
    """Make the module's session current: a new one when the module or the operator set changed,
    the sample applied, and when the tests changed, the baseline and the survivors re-tested."""
    # the mutants depend on the module and the operator set; the verdicts also on the tests
    fp_mutants = fingerprint(
        [module.encode(), json.dumps(KEPT_OPERATORS).encode(), (work / module).read_bytes()]
    )
    fp_tests = fingerprint(
        [command.encode(), str(TIMEOUT).encode()]
        + [(work / t.split("::")[0]).read_bytes() for t in tests if t.startswith("tests/")]
    )
    old = stamp.read_text().split() if stamp.exists() and db.exists() else []
    if old[:1] != [fp_mutants]:
        db.unlink(missing_ok=True)
        subprocess.run(
            [tool("cosmic-ray"), "init", str(cfg), str(db)], cwd=work, env=env, check=True
        )
        subprocess.run(
            [tool("cr-filter-operators"), str(db), str(cfg)], cwd=work, env=env, check=True
        )
        skip_out_of_scope(db, module)
    apply_sample(db, module, fraction)
    if old != [fp_mutants, fp_tests]:
        base = subprocess.run(
            [tool("cosmic-ray"), "baseline", str(cfg)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )
        if base.returncode != 0:
            tail = "\n".join((base.stdout + base.stderr).splitlines()[-30:])
            raise ModuleFailed(f"{module}: baseline failed: its tests fail unmutated\n{tail}")
        if old[:1] == [fp_mutants]:
            retest_survivors(work, db, command, env)
        stamp.write_text(f"{fp_mutants} {fp_tests}")


def run_module(
    work: Path,
    state: Path,
    module: str,
    tests: tuple[str, ...],
    fraction: float,
    execute: bool = True,
    pending: bool = True,
) -> ModuleResult:
    state.mkdir(parents=True, exist_ok=True)
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
    if not execute:
        if not db.exists():
            raise ModuleFailed(f"{module}: no session in {state} (not run yet)")
    else:
        prepare(work, module, tests, fraction, cfg, db, stamp, command, env)
        print(f"== {module}: mutating with tests {' '.join(tests)}", flush=True)
        if pending:
            subprocess.run(
                [tool("cosmic-ray"), "exec", str(cfg), str(db)], cwd=work, env=env, check=True
            )
    dump = subprocess.run(
        [tool("cosmic-ray"), "dump", str(db)],
        cwd=state,
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
            if res["worker_outcome"] != "skipped":
                outcome = res["test_outcome"] or res["worker_outcome"]
            else:
                outcome = "unsampled" if res.get("output") == NOT_SAMPLED else "skipped"
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
    order = sorted(result.in_scope, key=lambda m: rank(module, m.operator, m.occurrence))
    for m in order[: sample_size(fraction, len(order))]:
        m.in_sample = True
    result.mutants.sort(key=lambda m: (m.line, m.col, m.operator))
    if execute and (work / module).read_bytes() != (ROOT / module).read_bytes():
        raise ModuleFailed(f"{module}: the copy differs from the checkout after the run")
    return result


def diff_lines(diff: str) -> str:
    """The changed lines of a unified diff, '-old' then '+new'."""
    return " | ".join(
        ln.strip()
        for ln in diff.splitlines()
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )


def pooled(results: list[ModuleResult], fraction: float) -> str:
    """One line per scope (reference/, the lemma module): the score on the sample at `fraction`
    of every module of that scope, with its 95 % Wilson interval. Proportional allocation
    (ceil(f n) per module) makes the pooled sample close to a uniform sample of the scope."""
    out = []
    for scope in ("reference/", "properties/lemmas.py"):
        rs = [r for r in results if r.module.startswith(scope)]
        if not rs:
            continue
        sample = [m for r in rs for m in r.in_scope if m.in_sample]
        population = sum(len(r.in_scope) for r in rs)
        pending = sum(1 for m in sample if m.outcome in ("pending", "unsampled"))
        equivalent = sum(1 for r in rs for m in r.equivalent if m.in_sample)
        killed = sum(1 for m in sample if m.outcome in ("killed", "incompetent"))
        n = len(sample) - pending - equivalent
        low, high = wilson(killed, n)
        score = 100.0 * killed / n if n else 0.0
        out.append(
            f"{scope}: {len(rs)} modules, {population} mutants in scope; sample at f = "
            f"{fraction:g}: {len(sample)} mutants, {killed} killed, {equivalent} equivalent, "
            f"{n - killed} survived, {pending} pending; score {score:.1f} % "
            f"(95 % Wilson interval {100 * low:.1f}-{100 * high:.1f} %)"
        )
    return "\n".join(out)


def report(results: list[ModuleResult], fraction: float = 1.0) -> str:
    out = [
        "| module | in scope | run | killed | survived | equivalent | pending | score |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        run = r.run
        killed = r.count("killed") + r.count("incompetent")
        out.append(
            f"| {r.module} | {len(r.in_scope)} | {len(run)} | {killed} | {len(r.survivors)} | "
            f"{len(r.equivalent)} | {r.count('pending')} | {r.score:.1f} % |"
        )
    out.append("")
    out.append(pooled(results, fraction))
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
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "mutation", help="sessions, copies")
    ap.add_argument("--list", action="store_true", help="print modules and test selections")
    ap.add_argument(
        "--fraction",
        type=float,
        default=1.0,
        help="run the first ceil(f n) mutants of each module in a fixed hash order (a uniform, "
        "reproducible sample; a larger f only adds); 1 = every mutant",
    )
    ap.add_argument(
        "--workers", type=int, default=1, help="modules run at once, each in its own copy"
    )
    ap.add_argument(
        "--report-only", action="store_true", help="print the sessions as they are, run nothing"
    )
    ap.add_argument(
        "--survivors-only",
        action="store_true",
        help="re-test the survivors (after a test change), leave pending mutants pending",
    )
    args = ap.parse_args(argv)
    if not 0.0 < args.fraction <= 1.0:
        ap.error(f"--fraction {args.fraction}: must be in (0, 1]")
    modules = args.modules or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        ap.error(f"no test selection for {unknown}; known: {list(MODULES)}")
    if args.list:
        for m in modules:
            print(m, " ".join(MODULES[m]))
        return 0
    out: Path = args.out.resolve()
    state = out / "sessions"
    trees = [out / f"tree-{k}" for k in range(1, max(1, args.workers) + 1)]
    free = list(trees)
    lock = threading.Lock()
    if not args.report_only:  # never touch a copy that a running session may be mutating
        for tree in trees:
            tree.mkdir(parents=True, exist_ok=True)
            copy_tree(tree)

    failed: list[str] = []

    def one(m: str) -> ModuleResult | None:
        with lock:
            tree = free.pop()
        try:
            if not args.report_only:
                check_namespace(tree, m)
            r = run_module(
                tree,
                state,
                m,
                MODULES[m],
                args.fraction,
                execute=not args.report_only,
                pending=not args.survivors_only,
            )
            print(report([r], args.fraction), flush=True)
            return r
        except ModuleFailed as e:
            print(f"NOT RUN {e}", flush=True)
            failed.append(str(e))
            return None
        finally:
            with lock:
                free.append(tree)

    with ThreadPoolExecutor(max_workers=len(trees)) as pool:
        results = [r for r in pool.map(one, modules) if r is not None]
    text = report(results, args.fraction) + "".join(f"\nNOT RUN {f}" for f in failed)
    print("\n== summary\n" + text)
    (out / "report.md").write_text(text + "\n")
    clean = all(not r.survivors and not r.count("pending") for r in results)
    return 0 if clean and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
