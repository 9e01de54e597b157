"""A TLA+ model's state graph, as the model-derived step vectors read it (docs/steps.md,
"Model-derived vectors").

The pinned checker (`tla`, spec/manifest.json's `tla_checker`) explores a model at a bound and
exports every state it reached with every transition (`--export-dot --dot-mode full`); each
transition is labelled with the name of the action taken. A model-derived generator walks these
(state, action, successor) triples, keeps those whose action maps onto one handler call of one
node, and turns the state into a `pre.json` through the family's abstraction map read backwards.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

State = dict[str, Any]


class Record(dict[str, Any]):
    """A TLA+ record: a dict that can be an element of a set (a frozenset)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


def available() -> bool:
    """Whether the TLA+ checker is installed (`bash scripts/setup.sh` installs it)."""
    return shutil.which("tla") is not None


def value(text: str) -> Any:
    """A value of the checker's state labels: integers, booleans, strings, sets {..} (as
    frozensets), tuples and sequences <<..>> (as tuples), records [a |-> 1] (as dicts) and
    functions (d :> v @@ ...) (as dicts)."""
    tokens = re.findall(r"<<|>>|\|->|:>|@@|[{}\[\](),]|-?\d+|true|false|\"[^\"]*\"|\w+", text)
    pos = 0

    def atom() -> Any:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok in ("{", "<<"):
            close = "}" if tok == "{" else ">>"
            items = []
            while tokens[pos] != close:
                items.append(parse())
                if tokens[pos] == ",":
                    pos += 1
            pos += 1
            return frozenset(items) if tok == "{" else tuple(items)
        if tok == "[":
            record: dict[Any, Any] = {}
            while tokens[pos] != "]":
                key = tokens[pos]
                pos += 2  # the key and |->
                record[key] = parse()
                if tokens[pos] == ",":
                    pos += 1
            pos += 1
            return Record(record)
        if tok == "(":
            inner = parse()
            pos += 1  # )
            return inner
        if tok.lower() in ("true", "false"):
            return tok.lower() == "true"
        if tok.startswith('"'):
            return tok[1:-1]
        if tok.lstrip("-").isdigit():
            return int(tok)
        return tok  # a model value

    def parse() -> Any:
        nonlocal pos
        first = atom()
        if pos < len(tokens) and tokens[pos] == ":>":
            pos += 1
            fn = {first: atom()}
            while pos < len(tokens) and tokens[pos] == "@@":
                pos += 1
                d = atom()
                pos += 1  # :>
                fn[d] = atom()
            return fn
        return first

    return parse()


def parse_dot(dot: str) -> tuple[dict[str, State], list[tuple[str, str, str]]]:
    """The states (id -> variable -> value) and the labelled transitions (from, to, action) of
    an exported state graph. A variable's value is parsed once per distinct text and shared by
    every state that has it (most states differ from their neighbours in one or two variables),
    so the values are read-only."""
    states: dict[str, State] = {}
    parsed: dict[str, Any] = {}
    for sid, label in re.findall(r'^\s*(s\d+) \[label="(.*)"\];$', dot, re.M):
        label = label.replace('\\"', '"')  # a string value's quotes are escaped in the label
        state: State = {}
        for part in label.split("\\n"):
            name, text = part.split("=", 1)
            if text not in parsed:
                parsed[text] = value(text)
            state[name] = parsed[text]
        states[sid] = state
    edges = re.findall(r'^\s*(s\d+) -> (s\d+) \[label="(\w+)"\];$', dot, re.M)
    return states, edges


@dataclass(frozen=True)
class Graph:
    """The explored state graph of one model at one bound."""

    states: dict[str, State]
    edges: list[tuple[str, str, str]]  # (from, to, action)


def export(module: str, cfg: str, constants: Mapping[str, str] = {}) -> Graph:
    """Explore `spec/<module>` with `spec/<cfg>` (paths as in spec/manifest.json), constants
    overridden by `constants` (the checker's `-c NAME=VALUE`), and return its state graph."""
    spec = Path(str(resources.files("pubsub_spec") / "spec"))
    with tempfile.TemporaryDirectory() as tmp:
        dot_file = Path(tmp) / "model.dot"
        command = ["tla", str(spec / module), "--config", str(spec / cfg)]
        for name, v in constants.items():
            command += ["-c", f"{name}={v}"]
        command += ["--export-dot", str(dot_file), "--dot-mode", "full"]
        subprocess.run(command, check=True, capture_output=True, text=True)
        states, edges = parse_dot(dot_file.read_text())
    return Graph(states, edges)
