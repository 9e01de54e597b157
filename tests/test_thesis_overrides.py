"""The thesis system's overrides (reference/thesis/overrides.py): what `simulate`'s flags do to
a trace's `thesis` section."""

from __future__ import annotations

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.thesis.config import ThesisConfig, config_of, with_config
from pubsub_spec.reference.thesis.overrides import Overrides, configured, parse_cutoff
from pubsub_spec.reference.thesis.workload import thesis_trace


def test_the_preset_comes_first_and_the_flags_override_it() -> None:
    trace = thesis_trace(20, 1, 5, 3)
    c = config_of(configured(trace, Overrides(preset="thesis", probe="unicast", replication=1)))
    assert c.probe == "unicast" and c.delivery == "unicast" and c.replication == 1
    assert c.cutoff and all(v > 0 for _, v in c.cutoff)  # the preset's default c
    assert config_of(configured(trace, Overrides())) == ThesisConfig()


def test_unset_overrides_keep_the_traces_section_and_the_others_replace_it() -> None:
    trace = thesis_trace(20, 1, 5, 3)
    q = f"{trace.schemas[0].name}/{trace.schemas[0].attributes[0].name}"
    own = ThesisConfig(widening=((q, 2.0),), cutoff=((q, 9.0),), max_depth=7, delivery="lbdd")
    c = config_of(configured(with_config(trace, own), Overrides(proximity_routing=True)))
    assert (c.widening, c.cutoff, c.delivery) == (own.widening, own.cutoff, "lbdd")
    assert c.proximity_routing and c.max_depth == ThesisConfig.max_depth  # always set
    wide = config_of(configured(trace, Overrides(widening=0.5, cutoff="off")))
    n = sum(len(s.attributes) for s in trace.schemas)
    assert len(wide.widening) == n and {r for _, r in wide.widening} == {0.5}
    assert wide.cutoff == ()


def test_a_bad_cutoff_names_its_source_and_field() -> None:
    schemas = thesis_trace(20, 1, 5, 3).schemas
    name = schemas[0].attributes[0].name
    assert parse_cutoff(f"{name}=4", schemas, "x") == ((f"{schemas[0].name}/{name}", 4.0),)
    for spec, field in (("Nope=3", "cutoff.Nope"), (f"{name}=0", f"cutoff.{name}"),
                        ("1.5", "cutoff")):  # fmt: skip
        with pytest.raises(InputError) as e:
            parse_cutoff(spec, schemas, "--cutoff")
        assert (e.value.where, e.value.field) == ("--cutoff", field)
