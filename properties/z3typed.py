"""The one typed wrapper around z3 (which has no type stubs).

Terms are `T`, wrapping a z3 expression; everything else in the project imports z3 only through
this module, so `Any` stays here. `prove` checks the premises first (a proof from unsatisfiable
premises is reported `vacuous`, with the conflicting premises named, never `proved`), then that
the premises with the negated conclusion are unsatisfiable; otherwise it prints the model as
`name = value` lines (rationals as fractions with a decimal, bit-vectors in decimal and hex),
the values of named derived terms, and which named conclusions the model violates.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import z3 as _z3

Number = int | float | Fraction
Verdict = Literal["proved", "counterexample", "vacuous", "unknown"]


def _lift(x: T | Number | bool) -> Any:
    if isinstance(x, T):
        return x.e
    if isinstance(x, Fraction):
        return _z3.Q(x.numerator, x.denominator)
    return x


class T:
    """A z3 term (arithmetic, Boolean or bit-vector) with Python operators.

    `==`/`!=` are kept as Python identity (so terms can live in sets); use `.eq`/`.ne`.
    `//` is floor division for a positive divisor: SMT-LIB `div` on integers, `to_int(a/b)`
    on reals. `&`, `|`, `~`, `>>` are And, Or, Not and implication on Boolean terms.
    """

    __slots__ = ("e",)

    def __init__(self, e: Any) -> None:
        self.e = e

    def __add__(self, o: T | Number) -> T:
        return T(self.e + _lift(o))

    def __radd__(self, o: Number) -> T:
        return T(_lift(o) + self.e)

    def __sub__(self, o: T | Number) -> T:
        return T(self.e - _lift(o))

    def __rsub__(self, o: Number) -> T:
        return T(_lift(o) - self.e)

    def __mul__(self, o: T | Number) -> T:
        return T(self.e * _lift(o))

    def __rmul__(self, o: Number) -> T:
        return T(_lift(o) * self.e)

    def __neg__(self) -> T:
        return T(-self.e)

    def __truediv__(self, o: T | Number) -> T:
        """Real division (an integer term is first converted to a real)."""
        a = _z3.ToReal(self.e) if _z3.is_int(self.e) else self.e
        b = _lift(o)
        if isinstance(b, int):
            b = _z3.RealVal(b)
        elif _z3.is_expr(b) and _z3.is_int(b):
            b = _z3.ToReal(b)
        return T(a / b)

    def __floordiv__(self, o: T | Number) -> T:
        b = _lift(o)
        if _z3.is_int(self.e) and (isinstance(b, int) or (_z3.is_expr(b) and _z3.is_int(b))):
            return T(self.e / b)  # SMT-LIB div: floor for a positive divisor
        return T(_z3.ToInt(self.e / b))

    def __mod__(self, o: T | int) -> T:
        return T(self.e % _lift(o))

    def __lt__(self, o: T | Number) -> T:
        return T(self.e < _lift(o))

    def __le__(self, o: T | Number) -> T:
        return T(self.e <= _lift(o))

    def __gt__(self, o: T | Number) -> T:
        return T(self.e > _lift(o))

    def __ge__(self, o: T | Number) -> T:
        return T(self.e >= _lift(o))

    def eq(self, o: T | Number | bool) -> T:
        return T(self.e == _lift(o))

    def ne(self, o: T | Number | bool) -> T:
        return T(self.e != _lift(o))

    def __and__(self, o: T) -> T:
        return T(_z3.And(self.e, o.e))

    def __or__(self, o: T) -> T:
        return T(_z3.Or(self.e, o.e))

    def __invert__(self) -> T:
        return T(_z3.Not(self.e))

    def __rshift__(self, o: T) -> T:
        """Implication (on Boolean terms)."""
        return T(_z3.Implies(self.e, o.e))

    def __str__(self) -> str:
        return str(self.e)


# -- constructors -------------------------------------------------------------------------
def real(name: str) -> T:
    return T(_z3.Real(name))


def integer(name: str) -> T:
    return T(_z3.Int(name))


def var(name: str, sort: Literal["real", "int"]) -> T:
    return real(name) if sort == "real" else integer(name)


def boolean(value: bool) -> T:
    return T(_z3.BoolVal(value))


def num(value: Number, sort: Literal["real", "int"]) -> T:
    if sort == "int":
        return T(_z3.IntVal(int(value)))
    f = Fraction(value)
    return T(_z3.Q(f.numerator, f.denominator))


def bitvec(name: str, bits: int) -> T:
    return T(_z3.BitVec(name, bits))


def bv_const(value: int, bits: int) -> T:
    return T(_z3.BitVecVal(value, bits))


# -- combinators --------------------------------------------------------------------------
def all_of(*ts: T) -> T:
    return T(_z3.And(*[t.e for t in ts])) if ts else boolean(True)


def any_of(*ts: T) -> T:
    return T(_z3.Or(*[t.e for t in ts])) if ts else boolean(False)


def distinct(*ts: T) -> T:
    """Pairwise different."""
    return T(_z3.Distinct(*[t.e for t in ts])) if len(ts) > 1 else boolean(True)


def iff(a: T, b: T) -> T:
    return T(a.e == b.e)


def xor(a: T, b: T) -> T:
    return T(_z3.Xor(a.e, b.e))


def ite(c: T, a: T | Number, b: T | Number) -> T:
    return T(_z3.If(c.e, _lift(a), _lift(b)))


def to_int(x: T) -> T:
    """floor of a real term."""
    return T(_z3.ToInt(x.e))


def to_real(x: T) -> T:
    """An integer term as a real term (a real term is returned unchanged)."""
    return T(_z3.ToReal(x.e)) if _z3.is_int(x.e) else x


def minimum(a: T, b: T) -> T:
    return T(_z3.If(a.e <= b.e, a.e, b.e))


def maximum(a: T, b: T) -> T:
    return T(_z3.If(a.e >= b.e, a.e, b.e))


# -- bit-vectors (unsigned) ---------------------------------------------------------------
def ult(a: T, b: T) -> T:
    return T(_z3.ULT(a.e, b.e))


def ule(a: T, b: T) -> T:
    return T(_z3.ULE(a.e, b.e))


def bv_xor(a: T, b: T) -> T:
    return T(a.e ^ b.e)


def lshr(a: T, bits: int) -> T:
    """Logical shift right by a constant."""
    return T(_z3.LShR(a.e, bits))


def bit(a: T, index: int) -> T:
    """Bit `index` of a bit-vector is set (a Boolean term)."""
    return T(_z3.Extract(index, index, a.e) == 1)


# -- proving ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    model: str  # the counterexample, or why the premises are vacuous, or why z3 gave up
    seconds: float
    violated: tuple[str, ...] = ()
    resources: int = 0  # z3 "rlimit count" spent by both checks (deterministic)


# Resource budget of one check (z3's rlimit, deterministic for one z3 version and, each check
# in a fresh context, whatever ran before): the heaviest lemma of properties/lemmas.py
# (path_depth_bound) spends about 5.9 * 10^6, a seventeenth of it.
DEFAULT_RLIMIT = 100_000_000


def _spent(s: Any) -> int:
    st = s.statistics()
    names = st.keys()  # z3's Statistics: names by keys(), not by `in`
    return int(st.get_key_value("rlimit count")) if "rlimit count" in names else 0


def _value_text(v: Any) -> str:
    if _z3.is_int_value(v):
        return str(v.as_long())
    if _z3.is_rational_value(v):
        f = v.as_fraction()
        if f.denominator == 1:
            return str(f.numerator)
        return f"{f.numerator}/{f.denominator} (= {float(f):.6g})"
    if _z3.is_bv_value(v):
        n = v.as_long()
        return f"{n} (0x{n:0{(v.size() + 3) // 4}x})"
    if _z3.is_algebraic_value(v):
        return f"{v.approx(10)} (algebraic)"
    return str(v)


def _is_internal(name: str) -> bool:
    return "!" in name or name.startswith(("__premise", "div0", "mod0"))


def _natural(name: str) -> list[tuple[int, str]]:
    """Sort key: digest_2 before digest_10."""
    return [(int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"(\d+)", name) if p]


def _show(model: Any, show: Mapping[str, T], violated: Sequence[str]) -> str:
    lines = []
    for d in sorted(model.decls(), key=lambda d: _natural(d.name())):
        if d.arity() > 0 or _is_internal(d.name()):
            continue  # z3's internal functions (division by zero, ...) and premise labels
        lines.append(f"{d.name()} = {_value_text(model[d])}")
    for label, term in show.items():
        lines.append(f"  where {label} = {_value_text(model.eval(term.e, model_completion=True))}")
    if violated:
        lines.append("  violated: " + "; ".join(violated))
    return "\n".join(lines)


def prove(
    premises: Sequence[T] | Mapping[str, T],
    conclusion: T | Mapping[str, T],
    show: Mapping[str, T] | None = None,
    rlimit: int = DEFAULT_RLIMIT,
) -> Outcome:
    """Premises satisfiable (else `vacuous`), then premises and not conclusion unsatisfiable
    (`proved`), else a `counterexample` (or `unknown` when z3 gives up).

    Named premises are reported by name when they conflict; named conclusions are reported by
    name when a counterexample violates them; `show` names derived terms to print.

    The budget is z3's resource limit `rlimit` (a count of solver steps, for each of the two
    checks), not a wall-clock timeout: the same formula with the same z3 version gives the same
    verdict on a fast, slow or loaded machine. A check that exhausts it is `unknown`.

    Every call runs in a fresh z3 context (the terms are translated into it): the search, and
    so the count, would otherwise depend on what ran before in the shared one (its term ids,
    hence the order of z3's choices, follow every term built since the process started).
    """
    start = time.monotonic()
    named = (
        dict(premises)
        if isinstance(premises, Mapping)
        else {f"premise {i + 1}": p for i, p in enumerate(premises)}
    )
    ctx = _z3.Context()  # fresh: the count does not depend on what ran before
    s = _z3.Solver(ctx=ctx)
    s.set("rlimit", rlimit)  # relative to the context's count at each check: per check
    base = _spent(s)  # the count is the context's, cumulative: report the difference
    labels: dict[str, str] = {}
    for i, (label, p) in enumerate(named.items()):
        flag = f"__premise{i}"
        labels[flag] = label
        s.assert_and_track(p.e.translate(ctx), _z3.Bool(flag, ctx))
    first = s.check()
    if first == _z3.unsat:
        core = sorted(labels[str(c)] for c in s.unsat_core())
        return Outcome(
            "vacuous",
            "VACUOUS: the premises are unsatisfiable, so nothing is proved; conflicting: "
            + "; ".join(core),
            time.monotonic() - start,
            resources=_spent(s) - base,
        )
    if first == _z3.unknown:
        why = f"premises: {s.reason_unknown()} (rlimit {rlimit})"
        return Outcome("unknown", why, time.monotonic() - start, resources=_spent(s) - base)
    given = dict(conclusion) if isinstance(conclusion, Mapping) else {"conclusion": conclusion}
    goals = {label: g.e.translate(ctx) for label, g in given.items()}
    s.add(_z3.Not(_z3.And(*goals.values())))
    r = s.check()
    secs = time.monotonic() - start
    used = _spent(s) - base
    if r == _z3.unsat:
        return Outcome("proved", "", secs, resources=used)
    if r == _z3.sat:
        m = s.model()
        violated = tuple(
            label for label, g in goals.items() if _z3.is_false(m.eval(g, model_completion=True))
        )
        text = _show(m, {k: T(t.e.translate(ctx)) for k, t in (show or {}).items()}, violated)
        return Outcome("counterexample", text, secs, violated, used)
    return Outcome("unknown", f"{s.reason_unknown()} (rlimit {rlimit})", secs, resources=used)


def evaluate(term: T, values: Mapping[str, Number]) -> Fraction | bool:
    """The value of a term with its free constants set by name (for tests that tie a lemma's
    formulas to the reference implementation). Unnamed constants must not occur."""
    subs: list[tuple[Any, Any]] = []
    for name, value in values.items():
        f = Fraction(value)
        subs.append((_z3.Real(name), _z3.Q(f.numerator, f.denominator)))
        if f.denominator == 1:
            subs.append((_z3.Int(name), _z3.IntVal(f.numerator)))
    v = _z3.simplify(_z3.substitute(term.e, *subs)) if subs else _z3.simplify(term.e)
    if _z3.is_true(v):
        return True
    if _z3.is_false(v):
        return False
    if _z3.is_int_value(v):
        return Fraction(v.as_long())
    if _z3.is_rational_value(v):
        return Fraction(v.as_fraction())
    raise ValueError(f"term does not reduce to a value: {v}")
