"""The one typed wrapper around z3 (which has no type stubs): terms are `T`, wrapping a z3
expression; everything else in the project imports z3 only through this module, so `Any` stays
here. A proof checks its premises first (no vacuous proofs) and reports a readable model."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import z3 as _z3

Number = int | float


class T:
    """A z3 term with Python operators."""

    __slots__ = ("e",)

    def __init__(self, e: Any) -> None:
        self.e = e

    @staticmethod
    def of(x: T | Number | bool) -> Any:
        return x.e if isinstance(x, T) else x

    def __add__(self, o: T | Number) -> T:
        return T(self.e + T.of(o))

    def __radd__(self, o: Number) -> T:
        return T(o + self.e)

    def __sub__(self, o: T | Number) -> T:
        return T(self.e - T.of(o))

    def __rsub__(self, o: Number) -> T:
        return T(o - self.e)

    def __mul__(self, o: T | Number) -> T:
        return T(self.e * T.of(o))

    def __rmul__(self, o: Number) -> T:
        return T(o * self.e)

    def __truediv__(self, o: T | Number) -> T:
        return T(self.e / T.of(o))

    def __floordiv__(self, o: T | Number) -> T:
        """Integer division (floor for a positive divisor)."""
        return T(self.e / T.of(o))

    def __lt__(self, o: T | Number) -> T:
        return T(self.e < T.of(o))

    def __le__(self, o: T | Number) -> T:
        return T(self.e <= T.of(o))

    def __gt__(self, o: T | Number) -> T:
        return T(self.e > T.of(o))

    def __ge__(self, o: T | Number) -> T:
        return T(self.e >= T.of(o))

    def eq(self, o: T | Number | bool) -> T:
        return T(self.e == T.of(o))

    def ne(self, o: T | Number | bool) -> T:
        return T(self.e != T.of(o))

    def __and__(self, o: T) -> T:
        return T(_z3.And(self.e, o.e))

    def __or__(self, o: T) -> T:
        return T(_z3.Or(self.e, o.e))

    def __invert__(self) -> T:
        return T(_z3.Not(self.e))

    def __rshift__(self, o: T) -> T:
        """Implication."""
        return T(_z3.Implies(self.e, o.e))


def real(name: str) -> T:
    return T(_z3.Real(name))


def integer(name: str) -> T:
    return T(_z3.Int(name))


def bitvec(name: str, bits: int) -> T:
    return T(_z3.BitVec(name, bits))


def bv_const(value: int, bits: int) -> T:
    return T(_z3.BitVecVal(value, bits))


def ult(a: T, b: T) -> T:
    return T(_z3.ULT(a.e, b.e))


def ule(a: T, b: T) -> T:
    return T(_z3.ULE(a.e, b.e))


def bv_xor(a: T, b: T) -> T:
    return T(a.e ^ b.e)


def all_of(*ts: T) -> T:
    return T(_z3.And(*[t.e for t in ts])) if ts else T(_z3.BoolVal(True))


def any_of(*ts: T) -> T:
    return T(_z3.Or(*[t.e for t in ts])) if ts else T(_z3.BoolVal(False))


def ite(c: T, a: T | Number, b: T | Number) -> T:
    return T(_z3.If(c.e, T.of(a), T.of(b)))


def to_int(x: T) -> T:
    """floor of a real."""
    return T(_z3.ToInt(x.e))


def to_real(x: T) -> T:
    return T(_z3.ToReal(x.e))


def xor(a: T, b: T) -> T:
    return T(_z3.Xor(a.e, b.e))


@dataclass(frozen=True)
class Outcome:
    verdict: str  # proved | counterexample | vacuous | unknown
    model: str
    seconds: float


def _show(model: Any) -> str:
    lines = []
    for d in sorted(model.decls(), key=lambda d: d.name()):
        if d.arity() > 0:
            continue  # z3's internal functions (division by zero, ...)
        v = model[d]
        if _z3.is_rational_value(v):
            text = v.as_fraction()
            shown = str(text) if text.denominator != 1 else str(text.numerator)
        elif _z3.is_bv_value(v):
            shown = f"{v.as_long()} (0x{v.as_long():x})"
        else:
            shown = str(v)
        lines.append(f"{d.name()} = {shown}")
    return "\n".join(lines)


def prove(premises: list[T], conclusion: T, timeout_ms: int = 20000) -> Outcome:
    """Premises satisfiable (else `vacuous`), then premises and not conclusion unsatisfiable."""
    start = time.monotonic()
    s = _z3.Solver()
    s.set("timeout", timeout_ms)
    for p in premises:
        s.add(p.e)
    first = s.check()
    if first == _z3.unsat:
        return Outcome("vacuous", "the premises are unsatisfiable", time.monotonic() - start)
    if first == _z3.unknown:
        return Outcome("unknown", f"premises: {s.reason_unknown()}", time.monotonic() - start)
    s.add(_z3.Not(conclusion.e))
    r = s.check()
    secs = time.monotonic() - start
    if r == _z3.unsat:
        return Outcome("proved", "", secs)
    if r == _z3.sat:
        return Outcome("counterexample", _show(s.model()), secs)
    return Outcome("unknown", str(s.reason_unknown()), secs)
