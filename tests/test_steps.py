"""Step vectors (docs/steps.md): the canonical encodings round-trip, every committed document
matches its system's JSON Schema, the reference's handlers give every committed outcome, the
branch coverage goal holds, and the generators are deterministic."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from pubsub_spec.conformance.steps import systems
from pubsub_spec.conformance.steps.base import StepInputError, canonical, first_difference
from pubsub_spec.conformance.steps.lbdd import SYSTEM as LBDD
from pubsub_spec.conformance.steps.thesis import SYSTEM as THESIS
from pubsub_spec.conformance.steps.vectors import Vector, choose, judge, load, root

VECTORS = load()
# the systems with committed step vectors (a system being added may have none yet)
COMMITTED = sorted({v.system for v in VECTORS})


def _by(system: str, handler: str, invalid: bool = False) -> list[Vector]:
    return [
        v
        for v in VECTORS
        if v.system == system
        and v.handler == handler
        and (v.expected.invalid is not None) == invalid
    ]


def test_every_system_has_vectors_for_every_handler() -> None:
    assert {"thesis", "lbdd"} <= set(COMMITTED)
    for name in COMMITTED:
        system = systems()[name]
        have = {v.handler for v in VECTORS if v.system == name}
        assert have == {h.name for h in system.handlers}, name
        for h in system.handlers:  # each handler family has its README citing the paper rule
            readme = (root() / name / h.name / "README.md").read_text()
            assert h.rule in readme and system.paper in readme


@pytest.mark.parametrize("v", VECTORS, ids=lambda v: v.id)
def test_the_reference_gives_the_committed_outcome(v: Vector) -> None:
    got = systems()[v.system].apply(v.pre, v.input)
    assert judge(v.expected, got) is None
    if v.expected.invalid is None:  # byte for byte, not only up to 1 == 1.0
        assert canonical(got.post) == canonical(v.expected.post)
        assert canonical(got.sends) == canonical(v.expected.sends)


def test_documents_round_trip_and_match_the_schema() -> None:
    for name in COMMITTED:
        system = systems()[name]
        schema = system.schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        committed = json.loads((root() / name / "schema.json").read_text())
        assert committed == schema
        validators = {
            doc: jsonschema.Draft202012Validator({**schema, "$ref": f"#/$defs/{doc}"})
            for doc in ("pre", "input", "post", "sends")
        }
        for v in (v for v in VECTORS if v.system == name):
            docs = {"pre": v.pre, "input": v.input}
            if v.expected.invalid is None:
                docs |= {"post": v.expected.post, "sends": v.expected.sends}
            for doc, value in docs.items():
                validators[doc].validate(value)
                if doc != "sends":  # encode(decode(x)) == x
                    assert system.roundtrip(doc, value) == value, (v.id, doc)


def test_a_send_has_the_shape_of_a_send_observation() -> None:
    """sends.json entries are `send` observations (conformance/OBSERVATIONS.md) plus `route` and
    the whole `message`, without `hops`; they pass the observation parser's limits."""
    from pubsub_spec.conformance.protocol import parse_reply
    from pubsub_spec.conformance.protocol_rules.base import Observed
    from pubsub_spec.reference.sim.observe import SEND

    seen = 0
    for v in VECTORS:
        for s in v.expected.sends or []:
            fields = {k: x for k, x in s["fields"].items() if k != "message"}
            assert "hops" not in fields and fields["route"] in ("key", "direct")
            line = json.dumps({"type": "obs", "seq": 1, **s, "fields": fields})
            obs = parse_reply(line)
            assert isinstance(obs, Observed)
            assert obs.obs.kind == SEND and obs.obs.name == s["fields"]["message"]["type"]
            seen += 1
    assert seen > 50


def test_a_decoded_state_is_checked() -> None:
    v = _by("thesis", "LeafUpdate")[0]
    bad = copy.deepcopy(v.pre)
    internal = next(n for n in bad["node"]["nodes"] if n["lnrt"])
    internal["lnrt"] = internal["lnrt"][:1]  # records that do not partition the zone
    with pytest.raises(StepInputError, match="partition"):
        THESIS.apply(bad, v.input)
    bad_bits = copy.deepcopy(v.input)
    bad_bits["target"] = "012"
    with pytest.raises(StepInputError, match="bit string"):
        THESIS.apply(v.pre, bad_bits)
    nan = copy.deepcopy(_by("lbdd", "EventDelivery")[0].pre)
    nan["node"]["view"] = ["b", "a"]
    with pytest.raises(StepInputError, match="sorted"):
        LBDD.apply(nan, _by("lbdd", "EventDelivery")[0].input)


def test_invalid_inputs_are_refused_for_the_stated_reason() -> None:
    exists = [v for v in _by("thesis", "TransferSub", invalid=True) if v.case.endswith("exists")]
    outside = [v for v in _by("thesis", "ProbeSub", True) if v.case.endswith("-outside")]
    idle = [v for v in _by("thesis", "TransferSub", True) if v.case.endswith("-idle")]
    assert exists and outside and idle
    assert all("refused" in (v.expected.invalid or "") for v in exists + outside + idle)
    assert {v.case for v in _by("lbdd", "EventDelivery", invalid=True)} == {
        "members-unsorted",
        "not-a-member",
    }
    # the refusal is the handler's: the same pre-state without the hosted child is valid
    v = exists[0]
    pre = copy.deepcopy(v.pre)
    child = (v.input["tree"], v.input["target"])
    pre["node"]["nodes"] = [n for n in pre["node"]["nodes"] if (n["tree"], n["bits"]) != child]
    assert THESIS.apply(pre, v.input).invalid is None


def test_first_difference_names_the_json_path() -> None:
    assert first_difference({"a": [1, 2]}, {"a": [1, 2.0]}) is None
    assert first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "$.a[1]"
    assert first_difference({"a": [1, 2]}, {"a": [1]}) == "$.a[1]"
    assert first_difference({"a": 1, "b": 2}, {"a": 1}) == "$.b"
    assert first_difference({"a": True}, {"a": 1}) == "$.a"
    assert first_difference([{"x": {"y": "z"}}], [{"x": {"y": "w"}}], "post") == "post[0].x.y"


def test_the_branch_coverage_goal_holds() -> None:
    """scripts/step_coverage.py: at least 95 % of the handler branches per system."""
    from pubsub_spec.conformance.steps.branches import measure

    for name, per in measure(COMMITTED).items():
        taken = sum(t for t, _, _ in per.values())
        total = sum(n for _, n, _ in per.values())
        assert total > 10 and taken / total >= 0.95, (name, taken, total)


def test_lbdd_vectors_are_regenerated_byte_for_byte(tmp_path: Path) -> None:
    """Random and model-derived cases alike (the latter from the TLA+ checker's state graph)."""
    from pubsub_spec.conformance.steps import lbdd_model

    if not lbdd_model.available():
        pytest.skip("the TLA+ checker `tla` is not installed (scripts/setup.sh installs it)")
    chosen = list(choose(LBDD))
    model = [c for c, _ in chosen if c.name.startswith("model-")]
    assert len(model) == 21  # every distinct (state, Forward(n)) of MCLBDD at N = 5
    for case, outcome in chosen:
        where = root() / "lbdd" / case.handler / case.name
        assert (where / "pre.json").read_text() == canonical(case.pre)
        assert (where / "input.json").read_text() == canonical(case.input)
        if outcome.invalid is None:
            assert (where / "post.json").read_text() == canonical(outcome.post)
            assert (where / "sends.json").read_text() == canonical(outcome.sends)
    assert len(chosen) == sum(1 for v in VECTORS if v.system == "lbdd")


def test_the_thesis_harness_is_checked_against_the_live_peer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The generator compares the one-node harness's post-state with the live peer's after the
    real handler; a harness that loses a change is caught."""
    from pubsub_spec.conformance.steps import thesis, thesis_gen

    monkeypatch.setattr(thesis_gen, "RUNS", thesis_gen.RUNS[:1])
    cases = list(thesis_gen.candidates())
    assert len({c.handler for c in cases}) >= 5
    real = thesis.enc_node

    def lossy(peer, subs, events):  # type: ignore[no-untyped-def]
        out = real(peer, subs, events)
        out["capacity"] += 1
        return out

    monkeypatch.setattr(thesis, "enc_node", lossy)
    with pytest.raises(AssertionError, match="harness differs"):
        list(thesis_gen.candidates())


def test_the_step_vectors_have_teeth(monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/step_teeth.py: the operator mutants of the thesis and LBDD handler functions
    that are not argued equivalent, and the hand-written handler mutants, are all killed by the
    step vectors alone (goal: at least 95 % per system)."""
    import importlib.util
    import sys

    path = Path(__file__).parent.parent / "scripts" / "step_teeth.py"
    spec = importlib.util.spec_from_file_location("step_teeth", path)
    assert spec is not None and spec.loader is not None
    teeth = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "step_teeth", teeth)  # its dataclasses look it up
    spec.loader.exec_module(teeth)
    vectors = load(only=("thesis", "lbdd"))
    for name in ("thesis", "lbdd"):
        system = systems()[name]
        mine = [v for v in vectors if v.system == name]
        mutants = list(teeth.operator_mutants(system))
        survivors = []
        for m in mutants:
            system.prepare()
            undo = m.apply()
            try:
                if teeth.killed(system, mine) is None:
                    survivors.append(m)
            finally:
                undo()
        real = [m for m in survivors if teeth._key(m) not in teeth.EQUIVALENT]
        assert len(mutants) > 15 and len(real) <= 0.05 * len(mutants), (name, real)
    for name, mutant, system in teeth.hand_written():
        if name in ("thesis", "lbdd"):
            assert teeth.killed(system, [v for v in vectors if v.system == name]), mutant
    first = next(v for v in vectors if v.system == "thesis")  # the handlers are restored
    assert judge(first.expected, systems()["thesis"].apply(first.pre, first.input)) is None


def test_a_looping_mutant_is_killed_by_a_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/step_teeth.py bounds each step by Python lines and calls, not by time: a
    handler that never returns is killed after the same count on any machine, and a handler's
    `except Exception` does not take the stop for a refused input."""
    import importlib.util
    import sys

    path = Path(__file__).parent.parent / "scripts" / "step_teeth.py"
    spec = importlib.util.spec_from_file_location("step_teeth", path)
    assert spec is not None and spec.loader is not None
    teeth = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "step_teeth", teeth)
    spec.loader.exec_module(teeth)
    turns: list[int] = []

    def forever() -> None:
        n = 0
        try:
            while True:
                n += 1
                turns.append(n)
        except Exception:
            pass

    tracer = sys.gettrace()
    counts = []
    for _ in range(2):
        turns.clear()
        with pytest.raises(teeth.OverBudget):
            teeth.bounded(forever, 1000)
        counts.append(len(turns))
    assert counts[0] == counts[1] and 0 < counts[0] < 1000  # the same count each time
    assert sys.gettrace() is tracer  # the tracing as it was before
    for v in VECTORS:  # every committed step runs far within the budget (14,334 at most)
        system = systems()[v.system]
        system.prepare()
        teeth.bounded(lambda: system.apply(v.pre, v.input), teeth.BUDGET // 10)  # noqa: B023
    lbdd = [v for v in VECTORS if v.system == "lbdd"]
    assert teeth.killed(LBDD, lbdd) is None  # the reference is within the budget

    def loops(pre: object, step_input: object) -> None:
        forever()

    monkeypatch.setattr(LBDD, "apply", loops)
    assert "ran past 1,000,000 lines and calls" in str(teeth.killed(LBDD, lbdd))
