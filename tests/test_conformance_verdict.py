"""Verdicts: a fail names the missing, duplicate and spurious pairs; nothing checked fails;
an implementation's verdict over a set is its worst."""

from __future__ import annotations

import sys
from pathlib import Path

from pubsub_spec.conformance.verdict import Verdict, judge, overall, skipped_features
from pubsub_spec.reference.common.oracle import Delivery

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


def _skip(reason: str) -> Verdict:
    return Verdict("x", "t", "g", "skipped", 0, reason=reason, kind="feature")


def test_the_feature_policy_does_not_let_an_implementation_choose_its_exam() -> None:
    lacking = _skip("does not support lenient, churn, multi-schema (init_ok features)")
    assert skipped_features(lacking) == {"lenient", "churn", "multi-schema"}
    assert skipped_features(_skip("needs unsupported feature(s): churn")) == {"churn"}
    # 21 of 24 skipped, core multi-schema missing: incomplete, not pass
    opted_out = [_v("pass")] * 3 + [lacking] * 21
    assert overall(opted_out) == "incomplete"
    # a few skips of a non-core feature are allowed (kyra without churn: 3 of 24)
    churn = _skip("needs unsupported feature(s): churn")
    assert overall([_v("pass")] * 21 + [churn] * 3) == "pass"
    assert overall([_v("pass")] * 17 + [churn] * 7) == "incomplete"  # more than 25 %
    # a core feature is never optional, however rare
    assert overall([_v("pass")] * 30 + [_skip("needs unsupported feature(s): multi-schema")]) == (
        "incomplete"
    )
    # a named subset: skips outside it are accepted, inside it are not
    assert overall(opted_out, frozenset({"strict"})) == "pass"
    assert overall(opted_out, frozenset({"strict", "churn"})) == "incomplete"
    # skips that are not for lack of a feature (a rejected trace) do not count
    bad = Verdict("x", "t", "g", "skipped", 0, reason="bad trace", kind="bad-trace")
    assert overall([_v("pass"), bad, bad]) == "pass"


def test_an_outside_implementation_that_opts_out_is_incomplete(tmp_path: Path) -> None:
    from pubsub_spec.cmd_verify import main

    faulty = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "faulty.py"
    impl = f"{sys.executable} {faulty} --mode strict-only"
    assert main(["--impl", impl]) == 1
    assert main(["--impl", impl, "--features", "strict"]) == 0
