"""The teeth of the step vectors (docs/steps.md, "Teeth"): how many mutants of the protocol
handlers the step vectors alone kill, per system.

Two sets of mutants:
- operator mutants of the handler functions (the functions each `StepSystem.coverage` names),
  in the manner of cosmic-ray's operators (docs/mutation.md): every `if`/`elif`/`while` test
  negated, every comparison operator replaced by its neighbour (< and <=, > and >=, == and !=,
  in and not in, is and is not), every integer constant n replaced by n + 1, every call made
  as a statement removed (a message not sent, a record not applied). Lines that are not
  protocol rules (conformance/steps/branches.py, NOT_RULES: observation reports, memo caches) are
  not mutated;
- the project's hand-written mutants of the thesis system that override a handler
  (properties/thesis/mutants.py) and the step runner's own (conformance/steps/mutants.py).

A mutant is killed when some vector's outcome differs from the committed one, or the handler
raises, or one step runs past BUDGET Python lines and calls (a mutant that loops for ever: a
count, so that the verdict does not depend on the machine's speed). The score is killed /
(mutants - equivalent), printed per system with the survivors.

    .venv/bin/python scripts/step_teeth.py [--only thesis ...] [--limit N] [-v]
"""

from __future__ import annotations

import argparse
import ast
import copy
import inspect
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from pubsub_spec.conformance.steps import systems
from pubsub_spec.conformance.steps.base import StepSystem
from pubsub_spec.conformance.steps.branches import NOT_RULES
from pubsub_spec.conformance.steps.vectors import Vector, judge, load

ROOT = Path(__file__).resolve().parent.parent

# Python lines executed and calls made by one step at most (sys.settrace counts them): about
# 70 times the most a committed vector takes (14,334, a thesis step; the other systems' at most
# 7,633). A mutant that loops for ever runs past it and is killed: a count, not a time, so the
# verdict is the same on any machine.
BUDGET = 1_000_000

# Lines that are not protocol rules, besides NOT_RULES: the simulation's counters (thesis
# §4.2's figures), the substrate's cache invalidation (a no-op in the reference substrate), the
# installation bookkeeping of the subscriber (when a subscribe op completes, decision D-OPS).
NOT_MUTATED = ("self.metrics.", "points_changed(", ".install", "install.",
               # the same bookkeeping in Kyra, OctopiA, Tam (when a subscribe completes, the
               # driver's event numbering), their counters (matching operations, uninterested
               # servers, CIV-N copies, hits, TID switches) and the tests that guard only them
               "self._expect(", "self._arrived(", "self._start_sub(", "self._start_event(",
               "self._done(", "self._settle(", "self.installed_now(", "self.host.joined(",
               "self.note_publish(", " ops += 1", " ops = 0", "self.dropped_publishes",
               "self.switches += 1", "if not msg.remove:", "if not hit:", "if not ids:",
               "if c.civ:", "if on_key:", "if hit:",
               # Tam's hit/miss test (it guards only the counters) and the JOINs a
               # subscription waits for (when its subscribe completes)
               "for s in on_key):", "self.waiting[")  # fmt: skip

SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    module: str  # the file, relative to the repository root
    function: str
    line: int
    what: str
    apply: Callable[[], Callable[[], None]]  # installs the mutant; returns its undo


def _owner(module: types.ModuleType, name: str) -> tuple[object, object]:
    """(the class or module that defines `name`, the original function or cached wrapper)."""
    if name in vars(module) and callable(vars(module)[name]):
        return module, vars(module)[name]
    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == module.__name__ and name in vars(value):
            return value, vars(value)[name]
    raise LookupError(name)


def _install(
    module: types.ModuleType, name: str, tree: ast.FunctionDef, cls: str | None = None
) -> Callable[[], None]:
    """`cls`: the class whose method `name` is (a `Class.method` of StepSystem.coverage)."""
    owner, original = _owner(module, name)
    if cls is not None:
        owner = vars(module)[cls]
        original = vars(owner)[name]
    code = compile(ast.Module([tree], []), module.__file__ or name, "exec")
    space: dict[str, object] = {}
    exec(code, vars(module), space)
    new = space[name]
    setattr(owner, name, new)
    rebound = []
    if owner is module:  # also where it was imported by name
        for m in list(sys.modules.values()):
            if m is not module and getattr(m, name, None) is original:
                rebound.append(m)
                setattr(m, name, new)

    def undo() -> None:
        setattr(owner, name, original)
        for m in rebound:
            setattr(m, name, original)

    return undo


class _Points(ast.NodeVisitor):
    """The mutation points of one function, as (line, description, transform of a copy)."""

    def __init__(self, source: list[str]) -> None:
        self.source = source
        self.points: list[tuple[int, str, Callable[[ast.FunctionDef], None]]] = []
        self.path: list[int] = []

    def run(self, fn: ast.FunctionDef) -> None:
        skip = {id(n) for d in fn.decorator_list for n in ast.walk(d)}  # a cache's size
        for node in ast.walk(fn):  # what only reports observations
            if isinstance(node, ast.If) and "observer is not None" in ast.unparse(node.test):
                skip |= {id(n) for n in ast.walk(node)}
        for i, node in enumerate(ast.walk(fn)):
            if id(node) in skip:
                continue
            line = self.source[int(getattr(node, "lineno", 1)) - 1]
            if any(p in line for p in (*NOT_MUTATED, *NOT_RULES)):
                continue
            self._point(i, node)

    def _nth(self, i: int) -> Callable[[ast.FunctionDef], ast.AST]:
        return lambda f: list(ast.walk(f))[i]

    def _point(self, i: int, node: ast.AST) -> None:
        nth = self._nth(i)
        if isinstance(node, ast.If | ast.While):

            def negate(f: ast.FunctionDef, nth: Callable[[ast.FunctionDef], ast.AST] = nth) -> None:
                target = nth(f)
                assert isinstance(target, ast.If | ast.While)
                target.test = ast.UnaryOp(ast.Not(), target.test)

            self.points.append((node.lineno, "condition negated", negate))
        elif isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in SWAP:

                    def swap(f: ast.FunctionDef, nth: Callable[[ast.FunctionDef], ast.AST] = nth,
                             k: int = k) -> None:  # fmt: skip
                        target = nth(f)
                        assert isinstance(target, ast.Compare)
                        target.ops[k] = SWAP[type(target.ops[k])]()

                    new = SWAP[type(op)].__name__
                    self.points.append((node.lineno, f"{type(op).__name__} -> {new}", swap))
        elif isinstance(node, ast.Constant) and isinstance(node.value, int):
            if isinstance(node.value, bool):
                return

            def plus(f: ast.FunctionDef, nth: Callable[[ast.FunctionDef], ast.AST] = nth) -> None:
                target = nth(f)
                assert isinstance(target, ast.Constant) and isinstance(target.value, int)
                target.value = target.value + 1

            self.points.append((node.lineno, f"{node.value} -> {node.value + 1}", plus))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):

            def drop(f: ast.FunctionDef, nth: Callable[[ast.FunctionDef], ast.AST] = nth) -> None:
                target = nth(f)
                for parent in ast.walk(f):
                    for name in ("body", "orelse"):
                        body = getattr(parent, name, None)
                        if isinstance(body, list) and target in body:
                            body[body.index(target)] = ast.Pass()
                            return

            self.points.append((node.lineno, "call removed", drop))


def operator_mutants(system: StepSystem) -> Iterator[Mutant]:
    for rel, names in system.coverage:
        path = ROOT / rel
        module = _module_of(path)
        source = path.read_text()
        tree = ast.parse(source)
        lines = source.splitlines()
        found: list[tuple[ast.FunctionDef, str | None]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in names:
                found.append((node, None))
            if isinstance(node, ast.ClassDef):  # `Class.method` names (scripts/step_coverage.py)
                found += [(f, node.name) for f in node.body if isinstance(f, ast.FunctionDef)
                          and f"{node.name}.{f.name}" in names]  # fmt: skip
        for node, cls in found:
            finder = _Points(lines)
            finder.run(node)
            for line, what, transform in finder.points:

                def apply(
                    node: ast.FunctionDef = node,
                    transform: Callable[[ast.FunctionDef], None] = transform,
                    module: types.ModuleType = module,
                    cls: str | None = cls,
                ) -> Callable[[], None]:
                    fn = copy.deepcopy(node)
                    transform(fn)  # the points are numbered in the walk of the whole definition
                    fn.decorator_list = []
                    ast.fix_missing_locations(fn)
                    return _install(module, fn.name, fn, cls)

                yield Mutant(rel, node.name, line, what, apply)


def _module_of(path: Path) -> types.ModuleType:
    rel = path.relative_to(ROOT).with_suffix("")
    return sys.modules[_import("pubsub_spec." + ".".join(rel.parts))]


def _import(name: str) -> str:
    __import__(name)
    return name


class OverBudget(BaseException):
    """A step ran past its budget of lines and calls. A BaseException, so that no handler's
    `except Exception` takes it for a refused input."""


T = TypeVar("T")


def bounded(run: Callable[[], T], budget: int = BUDGET) -> T:
    """`run()`, stopped with OverBudget once it has executed `budget` Python lines and calls
    (sys.settrace: every line event and every call event counts one)."""
    left = budget

    def count(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal left
        if event in ("line", "call"):
            left -= 1
            if left < 0:
                raise OverBudget  # CPython turns the tracing off and propagates it
        return count

    previous = sys.gettrace()
    sys.settrace(count)
    try:
        return run()
    finally:
        sys.settrace(previous)


def killed(system: StepSystem, vectors: Sequence[Vector], budget: int = BUDGET) -> str | None:
    """The first vector that tells the system apart from the committed outcomes, or None. A
    step that runs past `budget` lines and calls (a mutant looping for ever) kills the mutant,
    as a timeout does in docs/mutation.md, but by count."""
    for v in vectors:
        try:
            got = bounded(partial(system.apply, v.pre, v.input), budget)
        except OverBudget:
            return f"{v.id}: ran past {budget:,} lines and calls"
        except Exception as e:  # a mutant that crashes is killed
            return f"{v.id}: raised {type(e).__name__}"
        where = judge(v.expected, got)
        if where is not None:
            return f"{v.id}: {where}"
    return None


def hand_written() -> Iterator[tuple[str, str, StepSystem]]:
    """(system, name, the system with the mutant's handlers): those that override a handler."""
    from pubsub_spec.conformance.steps.mutants import MUTANTS as STEP_MUTANTS
    from pubsub_spec.conformance.steps.thesis import THESIS_FUNCTIONS, ThesisSteps
    from pubsub_spec.properties.thesis.mutants import MUTANTS

    for name, cls in MUTANTS.items():
        if any(f in vars(cls) for f in THESIS_FUNCTIONS):
            yield "thesis", name, ThesisSteps(cls)
    for name, make in STEP_MUTANTS.items():
        system = make()
        yield system.name, name, system


_KYRA_HI = "if z.hi < a_hi or (z.hi == a_hi and not z.closed):"
KYRA_HELLY = (
    "reached only for a server on tree t (its zone meets Y_t, §III) with an extent meeting "
    "both zones: intervals meeting pairwise share a point (Helly, per cut attribute), so the "
    "answer is True, the mutant's too (tests/test_steps_model_kyra.py tries every order)"
)

# Survivors that cannot change a handler's behaviour, with the argument (docs/mutation.md keeps
# its equivalent mutants the same way): (module, function, what) -> why.
EQUIVALENT: dict[tuple[str, str, str, str], str] = {
    ("reference/thesis/system.py", "_area", "1 -> 2", 'attr = q.split("/", 1)[1]'):
        "q.split('/', 2) = q.split('/', 1): an attribute name has no '/' (Attribute.validate)",
    ("reference/thesis/system.py", "_matching", "GtE -> Gt", "if seq >= eseq:"):
        "a point's seq equals no event's seq: every op of a trace has its own seq",
    ("reference/thesis/lnrt.py", "record_containing", "1 -> 2",
     "for i in range(len(self.owner) + 1, len(path) + 1):"):
        "the range's end len(path) + 2: path[:len(path) + 1] is path (the other 1 -> 2 of the "
        "line, the start, is killed)",
    ("reference/thesis/lnrt.py", "coarsen", "0 -> 1", "merged = 0"):
        "the count of merges starts at 1: the handler ignores the count coarsen returns",
    ("reference/thesis/lnrt.py", "coarsen", "1 -> 2", "merged += 1"):
        "the count of merges: the handler ignores the count coarsen returns",
    ("reference/thesis/lnrt.py", "coarsen", "Gt -> GtE",
     "pairs = [p for p in pairs if len(p) > len(self.owner)]"):
        "the owner's own pair is never the deepest while other pairs exist, and a partition "
        "of more than two records always has a pair below the owner",
    ("reference/lbdd/algorithms.py", "bucket_construction", "Gt -> GtE",
     "elif b > self_no:  # only farther nodes are candidates for the next hop"):
        "b == self_no is taken by the branch before (elif)",
    ("reference/tam/system.py", "_eligible", "GtE -> Gt",
     "if rec is None or not rec.active or rec.seq >= self.event_seq[event.id]:"):
        "a subscription's seq equals no event's seq: every op of a trace has its own seq",
    ("reference/tam/system.py", "_route", "0 -> 1",
     "def _route(self, src: int, key: int | None, msg: BasicMessage, dst: int = 0) -> None:"):
        "the default of dst: dst is read only when key is None, and every such call passes it",
    ("reference/overlay/scribe.py", "_prune", "condition negated", "if not nodes:"):
        "the pruned peer's own entry is gone either way; the test only empties the simulation's "
        "map of every peer's state of the group (negated, it drops the other peers' entries, "
        "which a peer does not hold: the whole-run checks see that, not one peer's step)",
    ("reference/kyra/filters.py", "_common", "Gt -> GtE", "if z.lo > a_lo:"):
        "a_lo = z.lo when z.lo == a_lo changes nothing",
    ("reference/kyra/filters.py", "_common", "condition negated", "if z.lo > a_lo:"):
        KYRA_HELLY,
    ("reference/kyra/filters.py", "_common", "condition negated", _KYRA_HI): KYRA_HELLY,
    ("reference/kyra/filters.py", "_common", "Lt -> LtE", _KYRA_HI): KYRA_HELLY,
    ("reference/kyra/filters.py", "_common", "Eq -> NotEq", _KYRA_HI): KYRA_HELLY,
    ("reference/kyra/filters.py", "_common", "Lt -> LtE",
     "return a_lo < a_hi or (closed and a_lo == a_hi)"): KYRA_HELLY,
}  # fmt: skip


def _key(m: Mutant) -> tuple[str, str, str, str]:
    """A mutant as EQUIVALENT names it: by its line's text, which edits elsewhere keep."""
    line = (ROOT / m.module).read_text().splitlines()[m.line - 1].strip()
    return (m.module, m.function, m.what, line)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="*", default=(), help="systems (default: those with vectors)")
    p.add_argument("--limit", type=int, default=0, help="at most N operator mutants per system")
    p.add_argument("-v", "--verbose", action="store_true", help="every mutant")
    a = p.parse_args(argv)
    vectors = load(only=tuple(a.only))
    names = sorted({v.system for v in vectors})
    for name in names:
        system = systems()[name]
        mine = [v for v in vectors if v.system == name]
        mutants = list(operator_mutants(system))
        if a.limit:
            mutants = mutants[: a.limit]
        survivors = []
        for m in mutants:
            system.prepare()
            undo = m.apply()
            try:
                verdict = killed(system, mine)
            finally:
                undo()
            if verdict is None:
                survivors.append(m)
            if a.verbose:
                print(f"  {m.module}:{m.line} {m.function}: {m.what}: {verdict or 'SURVIVED'}")
        n = len(mutants)
        equivalent = [m for m in survivors if _key(m) in EQUIVALENT]
        k = n - len(survivors)
        score = 100.0 * k / max(1, n - len(equivalent))
        print(f"{name}: operator mutants killed {k}/{n - len(equivalent)} = {score:.1f} % "
              f"({n} mutants, {len(equivalent)} equivalent)")  # fmt: skip
        for m in survivors:
            why = EQUIVALENT.get(_key(m))
            tag = f"equivalent: {why}" if why else "SURVIVED"
            print(f"  {m.module}:{m.line} {m.function}: {m.what}: {tag}")
    for name, mutant, system in hand_written():
        if name not in names:
            continue
        verdict = killed(system, [v for v in vectors if v.system == name])
        outcome = f"killed ({verdict})" if verdict else "SURVIVED"
        print(f"{name}: hand-written mutant {mutant}: {outcome}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
