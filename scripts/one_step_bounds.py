"""Are the boundary mutants exactly one step past their bound? (docs/tla.md, "A boundary mutant
per numeric bound"; BOUNDS in tests/test_properties_strength.py.)

    .venv/bin/python scripts/one_step_bounds.py              # every row with a mutant
    .venv/bin/python scripts/one_step_bounds.py CutoffRemap  # rows whose key contains a word

For each row of BOUNDS that names a mutant model, the invariant is relaxed by one step at that
bound (RELAX: the text of the bound, then the relaxed text) in a copy of spec/, and the mutant
model is checked against the relaxed invariant alone, at its CI bound. It must hold: every
violation of the mutant is then within one step of the bound, so an invariant weakened by one
unit would let the mutant through. Not run by the test suite: the relaxed models explore the
mutants' whole state spaces (seconds for CutoffRemap, one to two minutes for the others, the
relaxed NoDepthCap longer than 15 minutes on a loaded machine). Exit 1 when a relaxed
invariant is violated or a row has no relaxation."""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pubsub_spec.properties.tla import (  # noqa: E402
    SPEC,
    _constant_flags,
    at_ci_bound,
    load_manifest,
    run_tla,
)
from tests.test_properties_strength import BOUNDS  # noqa: E402

# (module, invariant, bound) -> (the bound's text in the invariant, its one-step relaxation)
RELAX: dict[tuple[str, str, str], tuple[str, str]] = {
    ("kyra/MCKyraRouting.tla", "NoDuplicate", "<= 1"): ("dcount[q] <= 1", "dcount[q] <= 2"),
    ("kyra/MCKyraRouting.tla", "NothingMissed", ">= 1"): (
        "dcount[<<e, s>>] >= 1",
        "dcount[<<e, s>>] >= 0",
    ),
    ("kyra/MCKyraRouting.tla", "NoSpurious", ">= 1"): ("dcount[q] >= 1 =>", "dcount[q] >= 2 =>"),
    ("lbdd/MCLBDD.tla", "Coverage", "= 1"): ("got[n] = 1", "got[n] \\in 0..2"),
    ("lbdd/MCLBDD.tla", "DepthBound", "<= k"): ("hops[n] <= k", "hops[n] <= k + 1"),
    ("lbdd/MCLBDD.tla", "OneWay", "> Bucket"): (
        "Bucket(e[2]) > Bucket(e[1])",
        "Bucket(e[2]) >= Bucket(e[1])",
    ),
    ("lbdd/MCLBDD.tla", "SingleDelivery", "<= 1"): ("got[n] <= 1", "got[n] <= 2"),
    ("lbdd/MCLBDD.tla", "Tree", "<= 1"): ("e[2] = x}) <= 1", "e[2] = x}) <= 2"),
    ("octopia/MCScotRouting.tla", "NoDuplicate", "<= 1"): ("dlv[b] <= 1", "dlv[b] <= 2"),
    ("octopia/MCScotRouting.tla", "NoLoop", "<= 1"): ("recv[b] <= 1", "recv[b] <= 2"),
    ("octopia/MCScotRouting.tla", "NothingMissed", "= 1"): ("dlv[b] = 1", "dlv[b] \\in 0..2"),
    ("tam/MCScribe.tla", "NoMiss", "= 1"): ("got[e][m] = 1", "got[e][m] \\in 0..2"),
    ("tam/MCScribe.tla", "SingleDelivery", "<= 1"): ("got[e][p] <= 1", "got[e][p] <= 2"),
    ("thesis/MCCutoffRemap.tla", "BelowCutoff", "<= c"): ("SegLo(i) <= c", "SegLo(i) <= c + 1"),
    ("thesis/MCCutoffRemap.tla", "NoMiss", "<= u"): (
        "(l <= v /\\ v <= u) => Delivering #",
        "(l <= v /\\ v <= u - 1) => Delivering #",
    ),
    ("thesis/MCCutoffRemap.tla", "NoMiss", "<= v"): (
        "(l <= v /\\ v <= u) => Delivering #",
        "(l + 1 <= v /\\ v <= u) => Delivering #",
    ),
    ("thesis/MCCutoffRemap.tla", "NoSpurious", "<= u"): (
        "~(l <= v /\\ v <= u)",
        "~(l <= v /\\ v <= u + 1)",
    ),
    ("thesis/MCCutoffRemap.tla", "NoSpurious", "<= v"): (
        "~(l <= v /\\ v <= u)",
        "~(l - 1 <= v /\\ v <= u)",
    ),
    ("thesis/MCCutoffRemap.tla", "SingleDelivery", "<= 1"): (
        "Cardinality(Delivering) <= 1",
        "Cardinality(Delivering) <= 2",
    ),
    ("thesis/MCCutoffRemap.tla", "TypeOK", "<= u"): ("/\\ l <= u", "/\\ l <= u + 1"),
    ("thesis/MCTwoDTree.tla", "BoundedDepth", "<= D"): ("n[1] <= D", "n[1] <= D + 1"),
    ("thesis/MCTwoDTree.tla", "LnrtSound", "= 1"): (
        "Contains(r, p)}) = 1",
        "Contains(r, p)}) \\in 0..2",
    ),
    ("thesis/MCTwoDTree.tla", "NoMissedMatch", ">= 1"): (
        "dcount[<<e, s>>] >= 1",
        "dcount[<<e, s>>] >= 0",
    ),
    ("thesis/MCTwoDTree.tla", "SingleDelivery", "<= 1"): ("dcount[p] <= 1", "dcount[p] <= 2"),
}
# Rows whose bound is not a bound on a checked value (the reason is in BOUNDS).
GUARDS = {("thesis/MCTwoDTree.tla", "LnrtSound", "= 0")}


def relaxed_run(key: tuple[str, str, str], mutant: str, timeout: float) -> str:
    """The mutant checked against its invariant relaxed at `key`: the checker's status."""
    old, new = RELAX[key]
    model = at_ci_bound({m.name: m for m in load_manifest()}[mutant])
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(SPEC, Path(tmp) / "spec")
        folder = Path(tmp) / "spec" / Path(model.module).parent
        edited = 0
        for f in sorted(folder.glob("*.tla")):
            text = f.read_text()
            m = re.search(rf"^{key[1]}\s*==(.*?)(?=^\S|\Z)", text, re.M | re.S)
            if m and m.group(0).count(old) == 1:
                f.write_text(text.replace(m.group(0), m.group(0).replace(old, new)))
                edited += 1
        if edited != 1:
            return f"cannot relax: {old!r} not found once in {key[1]}"
        cfg = folder / Path(model.cfg).name
        only = re.sub(
            r"INVARIANTS?\s+(.*?)(?=\n[A-Z_]+\b|\Z)",
            f"INVARIANTS\n    {key[1]}\n",
            cfg.read_text(),
            flags=re.S,
        )
        cfg.write_text(only)
        out = run_tla(
            Path(model.module).name, cfg.name, folder, _constant_flags(model), timeout, None
        )
    return str(out.result.get("status")) if out.ended == "finished" else out.ended


def main(argv: list[str]) -> int:
    bad = 0
    for key, (mutant, _why) in sorted(BOUNDS.items()):
        if not mutant or key in GUARDS or (argv and not any(w in str(key) for w in argv)):
            continue
        status = relaxed_run(key, mutant, 1800.0) if key in RELAX else "no relaxation"
        bad += status != "ok"
        print(f"{'ok ' if status == 'ok' else 'BAD'} {key} {mutant}: {status}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
