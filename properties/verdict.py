"""The parts every check row shares, written once: the row itself (`CheckResult`), the verdict
of a row on the reference or on a mutant (`judged`: a mutant must be rejected, for the expected
reason), a timed row from a runner (`timed_row`), the Hypothesis settings of every searched row
(`search_settings`) and the search for the first violation (`first_failure`).

A runner returns `Found`: how much it explored and the first violation it met (None when the
property held). Every row is bounded by counts (examples, traces, runs), never by time."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

T = TypeVar("T")

# (explored, the first violation or None)
Found = tuple[int, str | None]

NO_TEETH = "NOT rejected: the check has no teeth"


@dataclass(frozen=True)
class CheckResult:
    """One row of `pubsub-spec check`: invariant, checker, check, explored, time, verdict."""

    invariant: str
    checker: str
    name: str
    explored: int
    unit: str
    seconds: float
    ok: bool
    detail: str = ""


def judged(found: str | None, mutant: bool, expected: bool = True) -> tuple[bool, str]:
    """(verdict, detail) of a row. On the reference the property holds when nothing was found;
    a mutant passes only when its check found a violation (`found`) and that violation is the
    expected one (`expected`: e.g. the conclusion a z3 mutant must break, the invariant a TLA+
    mutant must violate)."""
    if not mutant:
        return found is None, found or "holds"
    if found is None:
        return False, NO_TEETH
    if not expected:
        return False, f"NOT rejected as expected ({found})"
    return True, f"rejected: {found}"


def timed_row(
    invariant: str,
    checker: str,
    name: str,
    unit: str,
    run: Callable[[], Found],
    mutant: bool = False,
) -> CheckResult:
    """The row of one runner: run it, time it, judge what it found."""
    start = time.monotonic()
    explored, found = run()
    ok, detail = judged(found, mutant)
    return CheckResult(
        invariant, checker, name, explored, unit, time.monotonic() - start, ok, detail
    )


def search_settings(examples: int) -> settings:
    """The Hypothesis settings of every row of `pubsub-spec check`: derandomized (the same
    examples on every machine), quiet, no database, no shrinking (a row reports the first
    failure it meets) and no deadline (a row is bounded by its example count)."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )


class _Found(AssertionError):
    pass


def first_failure(
    strategy: st.SearchStrategy[T], check: Callable[[T], str | None], examples: int
) -> Found:
    """Run `check` on up to `examples` values drawn from `strategy` (`search_settings`); (values
    tried, the first problem `check` returned)."""
    count = 0
    found: list[str] = []

    @search_settings(examples)
    @given(strategy)
    def run(value: T) -> None:
        nonlocal count
        count += 1
        problem = check(value)
        if problem:
            found.append(problem)
            raise _Found(problem)

    with contextlib.suppress(_Found):
        run()
    return count, (found[0] if found else None)
