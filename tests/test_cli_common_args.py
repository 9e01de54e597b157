"""Options several commands share are defined once (pubsub_spec/common_args.py): wherever one
appears it has the same type, default, help and metavar."""

from __future__ import annotations

import argparse
import importlib

import pytest

from pubsub_spec.conformance.scale.planning import MAX_PARTITION_OPS


def _actions(module: str) -> dict[str, argparse.Action]:
    p = argparse.ArgumentParser(prog=module)
    importlib.import_module(f"pubsub_spec.{module}").add_arguments(p)
    return {s: a for a in p._actions for s in a.option_strings}


def _same(a: argparse.Action, b: argparse.Action) -> bool:
    fields = ("type", "default", "help", "metavar", "choices", "nargs")
    return all(getattr(a, f) == getattr(b, f) for f in fields)


SHARED = [
    (("cmd_conform", "cmd_generate"), "--count"),
    (("cmd_conform", "cmd_generate"), "--profile"),
    (("cmd_conform", "cmd_generate"), "--generators"),
    (("cmd_conform", "cmd_generate"), "--seed"),
    (("cmd_conform", "cmd_generate"), "--master"),
    (("cmd_conform", "cmd_generate"), "--driver-memory"),
    (("cmd_conform", "cmd_generate"), "--partition-ops"),
    (("cmd_conform", "cmd_verify"), "--op-timeout"),
    (("cmd_conform", "cmd_verify"), "--total-timeout"),
    (("cmd_conform", "cmd_verify"), "--features"),
    (("cmd_simulate", "cmd_lbdd"), "--seed"),
]


@pytest.mark.parametrize(("modules", "option"), SHARED)
def test_a_shared_option_is_the_same_in_every_command(
    modules: tuple[str, str], option: str
) -> None:
    first, second = (_actions(m)[option] for m in modules)
    assert _same(first, second), (vars(first), vars(second))


def test_ops_differs_only_in_what_the_command_does_at_that_scale() -> None:
    conform, generate = _actions("cmd_conform")["--ops"], _actions("cmd_generate")["--ops"]
    assert (conform.type, conform.default, conform.metavar) == (
        generate.type,
        generate.default,
        generate.metavar,
    )
    head = "size the trace set by its total number of ops instead of --count"
    assert str(conform.help).startswith(head) and str(generate.help).startswith(head)


def test_defaults_of_the_shared_options() -> None:
    """The defaults every command had before they were shared: the partition size is the
    planner's constant (not a copy of its value), trace sets are seeded 1, single runs 0."""
    for m in ("cmd_conform", "cmd_generate"):
        a = _actions(m)
        assert a["--partition-ops"].default == MAX_PARTITION_OPS
        assert (a["--seed"].default, a["--count"].default, a["--profile"].default) == (1, 3, None)
        assert a["--master"].default is None and a["--driver-memory"].default is None
    for m in ("cmd_simulate", "cmd_lbdd"):
        assert _actions(m)["--seed"].default == 0
    for m in ("cmd_conform", "cmd_verify"):
        a = _actions(m)
        assert (a["--op-timeout"].default, a["--total-timeout"].default) == (5.0, 120.0)


def test_generate_checks_the_spark_master_url_as_conform_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    p = argparse.ArgumentParser(prog="generate", exit_on_error=True)
    importlib.import_module("pubsub_spec.cmd_generate").add_arguments(p)
    assert p.parse_args(["--master", " local[4] "]).master == "local[4]"
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--master", "bogus://x"])
    assert e.value.code == 2 and "not a Spark master URL" in capsys.readouterr().err
