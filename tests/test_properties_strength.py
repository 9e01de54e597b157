"""Strength of the formal checks pinned: every z3 lemma has a mutant of its own and
needs every premise it states (or the premise is declared redundant, with the reason); the z3
budget is a deterministic resource limit with a wide margin; docs/z3-lemmas.md is the rendering
of the code; every TLA+ invariant of the thesis and LBDD specs has a mutant model of its own in
spec/manifest.json (the model's `expect` names the invariant it must violate)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path
from types import ModuleType

import pytest

from pubsub_spec.properties import contract, lemma_mutants, lemmas
from pubsub_spec.properties.kyra import lemmas as kyra_lemmas
from pubsub_spec.properties.lemma_page import PAGE, lemma_results, render
from pubsub_spec.properties.tam import lemmas as tam_lemmas
from pubsub_spec.properties.tla import SPEC, Model, load_manifest
from pubsub_spec.properties.z3typed import integer, prove

LEMMA_NAMES = [f.__name__ for f in lemmas.LEMMAS]
HEAVY = {"path_depth_bound"}  # about 5.9 * 10^6 z3 resources per proof: marked slow


def _result(name: str) -> lemmas.LemmaResult:
    return dict(lemma_results())[name]


# -- z3: a mutant per lemma ----------------------------------------------------------------
def test_every_lemma_has_a_mutant_of_its_own() -> None:
    names = {m.__name__ for m in lemma_mutants.MUTANTS}
    assert set(lemma_mutants.BREAKS) == names == set(lemma_mutants.EXPECTED)
    assert set(lemma_mutants.BREAKS.values()) <= set(LEMMA_NAMES)
    missing = set(LEMMA_NAMES) - set(lemma_mutants.BREAKS.values())
    assert not missing, f"lemmas without a mutant of their own: {sorted(missing)}"


@pytest.mark.parametrize("mutant", sorted(lemma_mutants.BREAKS))
def test_mutant_violates_a_conclusion_of_its_lemma(mutant: str) -> None:
    """The conclusion a mutant must violate is one its lemma proves: the mutant weakens that
    very lemma (test_z3_lemmas.py checks that each mutant is rejected)."""
    verdict = lemma_mutants.EXPECTED[mutant][0]
    labels = lemma_mutants.labels(mutant)
    lemma = _result(lemma_mutants.BREAKS[mutant])
    if verdict == "vacuous":
        assert labels == ()
    else:
        assert labels and all(c in lemma.conclusions for c in labels), (mutant, labels)


# -- z3: no lemma follows from fewer premises than it states --------------------------------
def _premise_cases() -> list[object]:
    return [
        pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else pytest.param(n)
        for n in LEMMA_NAMES
    ]


@pytest.mark.parametrize("name", _premise_cases())
def test_each_premise_is_needed_or_declared_redundant(name: str) -> None:
    fn = next(f for f in lemmas.LEMMAS if f.__name__ == name)
    full = _result(name)
    assert full.verdict == "proved"
    for premise in full.premises:
        w = lemmas.weakened(fn, premise)
        assert premise not in w.premises
        if (name, premise) in lemmas.REDUNDANT:
            assert w.verdict == "proved", f"{name}: {premise!r} is not redundant: {w.verdict}"
        else:
            assert w.verdict == "counterexample", (
                f"{name} follows without {premise!r}: drop the premise or list it in "
                f"lemmas.REDUNDANT with the reason it is kept"
            )
            assert w.violated


def test_redundant_table_names_real_premises() -> None:
    for (name, premise), why in lemmas.REDUNDANT.items():
        assert premise in _result(name).premises, (name, premise)
        assert why.strip()


# -- z3: deterministic budget --------------------------------------------------------------
def test_every_lemma_spends_less_than_a_tenth_of_its_budget() -> None:
    for name, r in lemma_results():
        assert r.verdict == "proved", name
        assert 0 < r.resources * 10 <= lemmas.RLIMIT, (name, r.resources)


ORDERS = 8  # seeded shuffles of every lemma, each after a random few mutants


@pytest.mark.slow  # about 8 s: path_depth_bound alone is 0.6 s a run
def test_resource_counts_do_not_depend_on_what_ran_before() -> None:
    """Every z3 check runs in a fresh context (z3typed.prove), so a lemma's count is the same
    whichever lemmas and mutants ran before it in the process. Measured before that: 11.1 M for
    path_depth_bound alone, 6.1 M after the other lemmas, 5.3 M after the Kyra lemmas."""
    counted: list[Callable[[], lemmas.LemmaResult]] = [*lemmas.LEMMAS, *tam_lemmas.LEMMAS]
    noise: list[Callable[[], object]] = [*lemma_mutants.MUTANTS, *tam_lemmas.MUTANTS]
    first: dict[str, int] = {}
    for seed in range(ORDERS):
        rng = random.Random(seed)
        order: list[Callable[[], object]] = [*counted, *kyra_lemmas.LEMMAS]
        rng.shuffle(order)
        for _ in range(3):  # a few mutants (counterexamples: other models) anywhere in it
            order.insert(rng.randrange(len(order) + 1), rng.choice(noise))
        seen: dict[str, int] = {}
        for f in order:
            r = f()
            if isinstance(r, lemmas.LemmaResult) and f in counted:
                assert r.verdict == "proved", (seed, r.name)
                assert 0 < r.resources * 10 <= lemmas.RLIMIT, (seed, r.name, r.resources)
                seen[r.name] = r.resources
            elif isinstance(r, kyra_lemmas.KyraLemma) and f in kyra_lemmas.LEMMAS:
                assert r.verdict == "proved", (seed, r.name)
        assert len(seen) == len(counted), seed
        first = first or seen
        assert seen == first, {n: (first[n], c) for n, c in seen.items() if first[n] != c}


def test_an_exhausted_budget_is_unknown_not_a_verdict() -> None:
    x, y = integer("x"), integer("y")
    premises = {"x, y > 1": (x > 1) & (y > 1)}
    hard = (x * x * x + y * y * y).ne(1729)  # false: 1 + 1728 = 9^3 + 10^3
    tiny = prove(premises, hard, rlimit=200)
    assert tiny.verdict == "unknown" and "rlimit 200" in tiny.model
    assert prove(premises, hard).verdict == "counterexample"  # within the default budget


# -- the page is the code's -----------------------------------------------------------------
def test_z3_page_is_the_rendering_of_the_code() -> None:
    assert PAGE.read_text() == render(), "run: python -m pubsub_spec.properties.lemma_page --write"


# -- one mechanism for every system: walk every contract ------------------------------------
def _models_of(c: contract.SystemContract) -> list[Model]:
    return [m for m in load_manifest() if any(fnmatch(m.name, g) for g in c.tla_models)]


def _definition(module: Path, name: str) -> str:
    """The body of the TLA+ definition `name` in `module` or a module it EXTENDS, comments
    and tuple brackets left out."""
    text = module.read_text()
    m = re.search(rf"^{name}\s*==(.*?)(?=^\S|\Z)", text, re.M | re.S)
    if m:
        return re.sub(r"\\\*.*", "", m.group(1)).replace("<<", " ").replace(">>", " ")
    ext = re.search(r"^EXTENDS\s+(.*)$", text, re.M)
    for base in ext.group(1).split(",") if ext else []:
        path = module.parent / f"{base.strip()}.tla"
        if path.exists() and (body := _definition(path, name)):
            return body
    return ""


# a numeric bound: a comparison with <=, >=, <, > or = a numeral, or a range a..b
_BOUND = re.compile(
    r"(<=|>=|(?<![<=/\\])<(?![=>])|(?<![-=])>(?!=)|(?<![<>=/])=\s*\d+|\\in\s+\d+\s*\.\.\s*\w+)"
    r"\s*([\w\[\]]*(?:\s*[-+]\s*\d+)?)"
)

SATURATED = "a type range whose top is where the counter saturates (Min2, Sat, IF @ < 2): no step \
of the model can leave it, so there is no run one step past it"
DOMAIN = "the domain a model constant or initial value is chosen from at Init"
ONE_OVER_CAP = "the counter saturates at 2, so every violation is exactly one step over"
ONE_UNDER = "a delivery count 0 where 1 is due: exactly one step under"
# Every numeric bound of an invariant a passing model checks (module, invariant, bound): the
# mutant model whose counterexample is exactly one step past it (so an invariant relaxed by one
# unit would let it through), with why; or, type ranges only, no mutant and the reason.
# fmt: off
BOUNDS: dict[tuple[str, str, str], tuple[str, str]] = {
    ("kyra/MCKyraRouting.tla", "NoDuplicate", "<= 1"): ("MCKyraRouting_NoZoneCheck", ONE_OVER_CAP),
    ("kyra/MCKyraRouting.tla", "NothingMissed", ">= 1"): ("MCKyraRouting_EarlyInstall", ONE_UNDER),
    ("kyra/MCKyraRouting.tla", "NoSpurious", ">= 1"): (
        "MCKyraRouting_NoSeqCheck", "one delivery (the least count the antecedent admits)"),
    ("kyra/MCKyraRouting.tla", "TypeOK", "\\in 0..2"): ("", SATURATED),
    ("lbdd/MCLBDD.tla", "Coverage", "= 1"): ("MCLBDD_EqualSlice", ONE_UNDER),
    ("lbdd/MCLBDD.tla", "DepthBound", "<= k"): (
        "MCLBDD_CountSource", "the publisher counted as a hop: every path k + 1 hops at most"),
    ("lbdd/MCLBDD.tla", "OneWay", "> Bucket"): (
        "MCLBDD_WithinBucket", "a target in its own bucket: equal, one step under"),
    ("lbdd/MCLBDD.tla", "SingleDelivery", "<= 1"): ("MCLBDD_CeilSliceTwice", ONE_OVER_CAP),
    ("lbdd/MCLBDD.tla", "Tree", "<= 1"): ("MCLBDD_CeilSlice", "two parents: one over"),
    ("lbdd/MCLBDD.tla", "TypeOK", "\\in 0..2"): ("", SATURATED),
    ("lbdd/MCLBDD.tla", "TypeOK", "\\in 0..7"): ("", SATURATED),
    ("octopia/MCScotRouting.tla", "NoDuplicate", "<= 1"): (
        "MCScotRouting_BackToSenderDeliver", ONE_OVER_CAP),
    ("octopia/MCScotRouting.tla", "NoLoop", "<= 1"): ("MCScotRouting_BackToSender", ONE_OVER_CAP),
    ("octopia/MCScotRouting.tla", "NothingMissed", "= 1"): (
        "MCScotRouting_DropOverloaded", ONE_UNDER),
    ("octopia/MCScotRouting.tla", "TypeOK", "\\in 0..Cap"): ("", SATURATED),
    ("tam/MCScribe.tla", "NoMiss", "= 1"): ("MCScribe_MembersOnlyForward", ONE_UNDER),
    ("tam/MCScribe.tla", "SingleDelivery", "<= 1"): ("MCScribe_NoDiscard", ONE_OVER_CAP),
    ("tam/MCScribe.tla", "TypeOK", "\\in 0..2"): ("", SATURATED),
    ("thesis/MCCutoffRemap.tla", "BelowCutoff", "<= c"): (
        "MCCutoffRemap_FitsOffByOne", "a range of length c + 1 taken as one segment"),
    ("thesis/MCCutoffRemap.tla", "NoMiss", "<= u"): (
        "MCCutoffRemap_OpenLast", "v = u: the value at the interval's closed end"),
    ("thesis/MCCutoffRemap.tla", "NoMiss", "<= v"): (
        "MCCutoffRemap_OpenFirst", "v = l: the value at the interval's lower end"),
    ("thesis/MCCutoffRemap.tla", "NoSpurious", "<= u"): (
        "MCCutoffRemap_LastPastEnd", "u + 1 delivered, the last segment ending there"),
    ("thesis/MCCutoffRemap.tla", "NoSpurious", "<= v"): (
        "MCCutoffRemap_FirstBeforeStart", "l - 1 delivered, the first segment starting there"),
    ("thesis/MCCutoffRemap.tla", "SingleDelivery", "<= 1"): (
        "MCCutoffRemap_ClosedSegments", "a shared end delivered by two segments: one over"),
    ("thesis/MCCutoffRemap.tla", "TypeOK", "<= u"): (
        "MCCutoffRemap_RangeOffByOne", "u = l - 1 accepted"),
    ("thesis/MCCutoffRemap.tla", "TypeOK", "\\in 0..MaxV"): ("", DOMAIN),
    ("thesis/MCCutoffRemap.tla", "TypeOK", "\\in 2..MaxC"): ("", DOMAIN),
    ("thesis/MCTwoDTree.tla", "BoundedDepth", "<= D"): (
        "MCTwoDTree_NoDepthCap", "the grid is D + 1 levels deep (R == D + 1): one over"),
    ("thesis/MCTwoDTree.tla", "LnrtSound", "= 0"): (
        "MCTwoDTree_KeepSplitRecord", "the guard pending[n] = 0 (no update pending), which its "
        "counterexample, as every violation, satisfies; not a bound on a checked value"),
    ("thesis/MCTwoDTree.tla", "LnrtSound", "= 1"): (
        "MCTwoDTree_KeepSplitRecord", "a split node's record kept: one record too many"),
    ("thesis/MCTwoDTree.tla", "NoMissedMatch", ">= 1"): ("MCTwoDTree_ThesisSplit", ONE_UNDER),
    ("thesis/MCTwoDTree.tla", "SingleDelivery", "<= 1"): ("MCTwoDTree_NoInherit", ONE_OVER_CAP),
}
# fmt: on


def _bounds(module: str, invariant: str) -> set[str]:
    body = _definition(SPEC / module, invariant)
    return {" ".join(b.group(0).split()) for b in _BOUND.finditer(body)}


def test_every_contract_has_a_mutant_per_invariant_and_bound() -> None:
    """The strength rules as one check over every system's contract: every manifest model
    belongs to one contract; every invariant a passing model checks (its cfg's INVARIANT
    lines) has a mutant model of its own that checks it and is rejected by it
    (tests/test_tla.py runs them); every numeric bound of such an invariant has a mutant
    exactly one step past it (BOUNDS), or is a type range with the reason. Fails listing
    everything missing."""
    owner: dict[str, str] = {}
    missing: list[str] = []
    seen_bounds: set[tuple[str, str, str]] = set()
    manifest = {m.name: m for m in load_manifest()}
    for c in contract.contracts():
        models = _models_of(c)
        assert models or not c.tla_models, c.family
        for m in models:
            assert m.name not in owner, (m.name, owner.get(m.name), c.family)
            owner[m.name] = c.family
        for module in sorted({m.module for m in models}):
            of = [m for m in models if m.module == module]
            checked = {i for m in of if m.expect == "pass" for i in _invariants(SPEC / m.cfg)}
            rejected = {m.expect for m in of if m.expect != "pass"}
            missing += [f"{c.family}: {module} {i}: no mutant" for i in sorted(checked - rejected)]
            for m in of:
                if m.expect != "pass":
                    assert m.expect in _invariants(SPEC / m.cfg), m.name
            for inv in sorted(checked):
                for b in sorted(_bounds(module, inv)):
                    key = (module, inv, b)
                    seen_bounds.add(key)
                    if key not in BOUNDS:
                        missing.append(f"{c.family}: {module} {inv} {b!r}: no boundary mutant")
                        continue
                    mutant, why = BOUNDS[key]
                    assert why.strip(), key
                    if not mutant:  # exempt: type ranges only
                        assert inv == "TypeOK", key
                        continue
                    mm = manifest.get(mutant)
                    ok = mm is not None and mm.module == module and mm.expect == inv
                    if not ok:
                        missing.append(f"{c.family}: {key}: {mutant} is not a mutant of it")
    assert set(owner) == set(manifest), f"no contract: {sorted(set(manifest) - set(owner))}"
    assert not missing, "\n".join(missing)
    stale = set(BOUNDS) - seen_bounds
    assert not stale, f"BOUNDS names bounds no invariant has: {sorted(stale)}"


def _lemma_names(mod: object) -> list[str]:
    return [f.__name__ for f in getattr(mod, "LEMMAS", ())]


# z3 lemmas without a mutant of their own naming them (a BREAKS table) and a premise-necessity
# check (`weakened`); the list may only shrink.
LEMMAS_WITHOUT_STRENGTH: set[str] = set()

# -- z3: the same rules for the lemmas of the later systems (Kyra, Tam) ---------------------
FAMILY_LEMMAS = (kyra_lemmas, tam_lemmas)


@pytest.mark.parametrize("mod", FAMILY_LEMMAS, ids=lambda m: m.__name__)
def test_family_mutant_tables_name_every_lemma(mod: ModuleType) -> None:
    names = {m.__name__ for m in mod.MUTANTS}
    breaks: dict[str, str] = mod.BREAKS
    assert set(breaks) == names == set(mod.EXPECTED)
    assert set(breaks.values()) == set(_lemma_names(mod)), "a lemma without a mutant of its own"


def _family_cases(table: str) -> list[object]:
    return [
        pytest.param(mod, name, id=f"{mod.__name__.rsplit('.', 2)[-2]}.{name}")
        for mod in FAMILY_LEMMAS
        for name in (getattr(mod, table) if table == "BREAKS" else _lemma_names(mod))
    ]


@pytest.mark.parametrize(("mod", "mutant"), _family_cases("BREAKS"))
def test_family_mutant_violates_a_conclusion_of_its_lemma(mod: ModuleType, mutant: str) -> None:
    fn = next(m for m in mod.MUTANTS if m.__name__ == mutant)
    lemma = next(f for f in mod.LEMMAS if f.__name__ == mod.BREAKS[mutant])
    verdict, label = mod.EXPECTED[mutant]
    r, proved = fn(), lemma()
    assert verdict == r.verdict == "counterexample", (mutant, r.verdict)
    assert label in r.violated and label in proved.conclusions, (mutant, r.violated)
    assert proved.verdict == "proved"


@pytest.mark.parametrize(("mod", "name"), _family_cases("LEMMAS"))
def test_family_premise_is_needed_or_declared_redundant(mod: ModuleType, name: str) -> None:
    fn = next(f for f in mod.LEMMAS if f.__name__ == name)
    redundant: dict[tuple[str, str], str] = mod.REDUNDANT
    full = fn()
    assert full.verdict == "proved" and full.premises
    for premise in full.premises:
        w = mod.weakened(fn, premise)
        assert premise not in w.premises
        if (name, premise) in redundant:
            assert w.verdict == "proved", f"{name}: {premise!r} is not redundant: {w.verdict}"
        else:
            assert w.verdict == "counterexample" and w.violated, (
                f"{name} follows without {premise!r}: drop the premise or list it in "
                f"{mod.__name__}.REDUNDANT with the reason it is kept"
            )


@pytest.mark.parametrize("mod", FAMILY_LEMMAS, ids=lambda m: m.__name__)
def test_family_redundant_table_names_real_premises(mod: ModuleType) -> None:
    results = {f.__name__: f() for f in mod.LEMMAS}
    for (name, premise), why in mod.REDUNDANT.items():
        assert premise in results[name].premises, (name, premise)
        assert why.strip()


def test_every_contract_lemma_has_a_mutant_and_premise_checks() -> None:
    """Every z3 lemma of every contract has a mutant that names it as the lemma it breaks and
    a premise-necessity check (the thesis' and LBDD's: lemma_mutants.BREAKS and
    lemmas.weakened, tested above); those without are exactly LEMMAS_WITHOUT_STRENGTH."""
    import importlib

    without: set[str] = set()
    sets = [r for c in contract.contracts() for r in c.z3]
    modules: dict[str, tuple[object, set[str], object]] = {
        lemmas.__name__: (lemmas, set(lemma_mutants.BREAKS.values()), lemmas.weakened)
    }
    for r in sets:
        if isinstance(r, contract.LemmaSet):
            mod = importlib.import_module(r.module)
            breaks = set(getattr(mod, "BREAKS", {}).values())
            modules[r.module] = (mod, breaks, getattr(mod, "weakened", None))
    assert {"pubsub_spec.properties.kyra.lemmas", "pubsub_spec.properties.tam.lemmas"} <= set(
        modules
    )
    for name, (module, breaks, weakened) in modules.items():
        short = name.rsplit(".", 2)[-2] + "_lemmas" if name != lemmas.__name__ else "lemmas"
        for lemma in _lemma_names(module):
            if lemma not in breaks or weakened is None:
                without.add(f"{short}.{lemma}")
    assert without == LEMMAS_WITHOUT_STRENGTH, (
        f"new without a mutant or premise check: {sorted(without - LEMMAS_WITHOUT_STRENGTH)}; "
        f"now covered, remove from the list: {sorted(LEMMAS_WITHOUT_STRENGTH - without)}"
    )


# -- TLA+: an own mutant per invariant ------------------------------------------------------
COVERED = ("thesis/", "lbdd/")  # the specs of this round; later systems: add theirs


def _invariants(cfg: Path) -> list[str]:
    text = re.sub(r"\\\*.*", "", cfg.read_text())
    m = re.search(r"INVARIANTS?\s+(.*?)(?:\n[A-Z_]+\b|\Z)", text, re.S)
    assert m, cfg
    return m.group(1).split()


def test_every_tla_invariant_has_a_mutant_of_its_own() -> None:
    models = [m for m in load_manifest() if m.module.startswith(COVERED)]
    modules = {m.module for m in models}
    assert modules >= {"thesis/MCTwoDTree.tla", "thesis/MCCutoffRemap.tla", "lbdd/MCLBDD.tla"}
    for module in modules:
        passing = [m for m in models if m.module == module and m.expect == "pass"]
        assert passing, module
        checked = {i for m in passing for i in _invariants(SPEC / m.cfg)}
        mutants = [m for m in models if m.module == module and m.expect != "pass"]
        rejected = {m.expect for m in mutants}
        assert checked <= rejected, f"{module}: no mutant for {sorted(checked - rejected)}"
        for m in mutants:  # a mutant's cfg checks the invariant it must violate
            assert m.expect in _invariants(SPEC / m.cfg), m.name
