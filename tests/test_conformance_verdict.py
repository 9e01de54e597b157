"""Verdicts: a fail names the missing, duplicate and spurious pairs; nothing checked fails;
an implementation's verdict over a set is its worst."""

from __future__ import annotations

from conformance.verdict import Verdict, judge, overall
from reference.common.oracle import Delivery

E = [Delivery("e1", "s1"), Delivery("e1", "s2"), Delivery("e2", "s1")]


def test_exact_deliveries_pass() -> None:
    v = judge("x", "t", "g", E, list(reversed(E)), publishes=2, seconds=0.0)
    assert v.verdict == "pass" and v.kind == "" and v.checked == 2 and v.expected == 3
    assert v.describe() == "pass (3 deliveries over 2 publishes)"


def test_a_fail_names_every_wrong_pair() -> None:
    got = [Delivery("e1", "s1"), Delivery("e1", "s1"), Delivery("e2", "s1"), Delivery("e2", "s9")]
    v = judge("x", "t", "g", E, got, publishes=2, seconds=0.0)
    assert v.verdict == "fail" and v.kind == "deliveries"
    assert v.missing == (Delivery("e1", "s2"),)
    assert v.duplicate == (Delivery("e1", "s1"),)
    assert v.spurious == (Delivery("e2", "s9"),)
    assert v.describe() == (
        "fail: 1 missing: (e1, s2); 1 duplicate: (e1, s1); 1 spurious: (e2, s9)"
    )


def test_long_lists_are_abbreviated() -> None:
    exp = [Delivery("e1", f"s{i}") for i in range(8)]
    v = judge("x", "t", "g", exp, [], publishes=1, seconds=0.0)
    assert v.describe().endswith("(e1, s4) and 3 more")


def test_a_run_that_checked_nothing_fails() -> None:
    v = judge("x", "t", "g", [], [], publishes=0, seconds=0.0)
    assert v.verdict == "fail" and v.kind == "vacuous" and "vacuous" in v.describe()


def test_no_deliveries_expected_is_still_a_check() -> None:
    assert judge("x", "t", "g", [], [], publishes=3, seconds=0.0).verdict == "pass"
    assert judge("x", "t", "g", [], [Delivery("e1", "s1")], 3, 0.0).verdict == "fail"


def _v(verdict: str, checked: int = 1) -> Verdict:
    return Verdict("x", "t", "g", verdict, checked)


def test_overall() -> None:
    assert overall([]) == "skipped"
    assert overall([_v("skipped", 0)]) == "skipped"
    assert overall([_v("pass"), _v("skipped", 0)]) == "pass"
    assert overall([_v("pass"), _v("unknown", 0)]) == "unknown"
    assert overall([_v("unknown", 0), _v("fail", 0)]) == "fail"
    assert overall([_v("unknown", 0), _v("skipped", 0)]) == "unknown"
    assert overall([_v("pass", 0)]) == "fail"  # passes that checked nothing prove nothing
