"""Tam's configuration (Tam et al.; docs/tam.md "Parameters") and its codec as the trace
header's `tam` / `tam-basic` section (conformance/FORMAT.md).

Fields: the indices of each schema table (§3.1; decision T9: without them, one singleton index
per attribute), interval cut points per qualified attribute (§3.5; decision T5), the
index-selection policy (§3.6; decision T6), the seen-list deadline (§3.6; decision T7), the
fallback of singleton indices for subscriptions no declared index covers (T9), and the network.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.system import ConfigCodec

IndexPolicy = Literal["first", "fewest-keys", "all"]
INDEX_POLICIES: tuple[IndexPolicy, ...] = ("first", "fewest-keys", "all")


@dataclass(frozen=True)
class TamConfig:
    # schema name -> its indices, each an ordered tuple of attribute names (§3.1, Table 1).
    indices: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    # qualified attribute "schema/attr" -> interior cut points, strictly increasing inside
    # (min, max) (§3.5 "interval indicators"; decision T5).
    intervals: tuple[tuple[str, tuple[float, ...]], ...] = ()
    # Default intervals (T5): an int domain of at most `exact_values` values gets one interval
    # per value (§3.5, "separate hash key per value"); any other domain `default_intervals`
    # equal-width intervals.
    exact_values: int = 64
    default_intervals: int = 16
    # Index selection (§3.6; T6): `first` applicable in declared order, `fewest-keys`, or
    # `all` applicable indices with the subscriber's seen-list.
    index_policy: IndexPolicy = "first"
    # Seen-list deadline in ms (§3.6; T7): None = never purged.
    seen_deadline_ms: float | None = None
    # Append singleton indices so that every subscription is covered (T9).
    fallback: bool = True
    # Pastry (as thesis §4.1.1) and the network model (mean RTT 180 ms).
    id_bits: int = 160
    digit_bits: int = 4
    leaf_set_size: int = 16
    mean_rtt_ms: float = 180.0

    def indices_of(self, schema: str) -> tuple[tuple[str, ...], ...] | None:
        return dict(self.indices).get(schema)

    def cuts_of(self, qattr: str) -> tuple[float, ...] | None:
        return dict(self.intervals).get(qattr)


SECTION = "tam"
BASIC_SECTION = "tam-basic"


def config_of(trace: Trace, section: str = SECTION) -> TamConfig:
    return trace.section(section, TamConfig) or TamConfig()


class TamCodec(ConfigCodec):
    def __init__(self, section: str = SECTION) -> None:
        self.section = section

    def default(self) -> TamConfig:
        return TamConfig()

    def parse(self, obj: Mapping[str, Any], where: str, schemas: Sequence[Schema]) -> TamConfig:
        return parse_config(obj, where, schemas, f"config.systems.{self.section}")

    def to_json(self, section: object) -> dict[str, Any]:
        assert isinstance(section, TamConfig)
        out: dict[str, Any] = {}
        default = TamConfig()
        for f in dataclasses.fields(TamConfig):
            value = getattr(section, f.name)
            if value == getattr(default, f.name):
                continue
            if f.name == "indices":
                out[f.name] = {s: [list(i) for i in ix] for s, ix in value}
            elif f.name == "intervals":
                out[f.name] = {q: list(c) for q, c in value}
            else:
                out[f.name] = value
        return out


def _int(value: object, where: str, fld: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(where, fld, f"expected an integer >= {low}, got {value!r}")
    return value


def parse_config(
    obj: Mapping[str, Any], where: str, schemas: Sequence[Schema], prefix: str
) -> TamConfig:
    """Every field checked against its type and domain; errors name `prefix.field`."""
    by_name = {s.name: s for s in schemas}
    kwargs: dict[str, Any] = {}
    for key, value in obj.items():
        fld = f"{prefix}.{key}"
        if key == "indices":
            if not isinstance(value, dict):
                raise InputError(where, fld, "expected an object schema -> [[attr, ...], ...]")
            out = []
            for s, ixs in value.items():
                if s not in by_name:
                    raise InputError(where, f"{fld}.{s}", "unknown schema")
                if not isinstance(ixs, list) or not ixs:
                    raise InputError(where, f"{fld}.{s}", "expected a non-empty list of indices")
                parsed = []
                for i, ix in enumerate(ixs):
                    if (
                        not isinstance(ix, list)
                        or not ix
                        or any(a not in by_name[s].by_name for a in ix)
                        or len(set(ix)) != len(ix)
                    ):
                        raise InputError(
                            where, f"{fld}.{s}[{i}]", "expected distinct attributes of the schema"
                        )
                    parsed.append(tuple(str(a) for a in ix))
                out.append((s, tuple(parsed)))
            kwargs[key] = tuple(out)
        elif key == "intervals":
            if not isinstance(value, dict):
                raise InputError(where, fld, "expected an object 'schema/attr' -> [cut, ...]")
            cuts_out = []
            for q, cuts in value.items():
                s, _, a = str(q).partition("/")
                if s not in by_name or a not in by_name[s].by_name:
                    raise InputError(where, f"{fld}.{q}", "not a qualified attribute schema/attr")
                attr = by_name[s].by_name[a]
                ok = isinstance(cuts, list) and all(
                    isinstance(c, int | float)
                    and not isinstance(c, bool)
                    and math.isfinite(c)
                    and attr.min < c < attr.max
                    for c in cuts
                )
                if not ok or any(x >= y for x, y in itertools.pairwise(cuts)):
                    raise InputError(
                        where, f"{fld}.{q}", "cuts must increase strictly inside (min, max)"
                    )
                cuts_out.append((str(q), tuple(float(c) for c in cuts)))
            kwargs[key] = tuple(cuts_out)
        elif key in ("exact_values", "default_intervals", "id_bits", "digit_bits"):
            kwargs[key] = _int(value, where, fld, 1)
        elif key == "leaf_set_size":
            kwargs[key] = _int(value, where, fld, 2)
        elif key == "index_policy":
            if value not in INDEX_POLICIES:
                raise InputError(where, fld, f"expected one of {', '.join(INDEX_POLICIES)}")
            kwargs[key] = value
        elif key in ("seen_deadline_ms", "mean_rtt_ms"):
            none_ok = key == "seen_deadline_ms"
            if value is None and none_ok:
                kwargs[key] = None
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise InputError(where, fld, f"expected a number >= 0, got {value!r}")
            kwargs[key] = float(value)
        elif key == "fallback":
            if not isinstance(value, bool):
                raise InputError(where, fld, f"expected a boolean, got {value!r}")
            kwargs[key] = value
        else:
            raise InputError(where, fld, "unknown config field")
    return TamConfig(**kwargs)
