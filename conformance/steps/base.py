"""The framework of the step vectors (docs/steps.md): one protocol handler of one node, as a
pre-state, an input (a message received or an op applied), and a post-state with the messages
the handler sends, or `invalid` with the reason where the input must be refused.

A system plugs in with a `StepSystem` (conformance/steps/<system>.py, listed in
`conformance/steps/__init__.py`): its canonical JSON encoding of one node's state and of its
messages (with a JSON Schema), a function that applies one input to one pre-state by running
the reference's handler over a one-node harness, the handlers it has (each with its paper
rule), the handler functions of `reference/` whose branches the vectors must take, and a
generator of candidate cases. Everything else (the layout on disk, the coverage-guided choice
of cases, the comparison with its first differing JSON path, the step runner of
`pubsub-spec verify --steps`) is written once, in this package.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

JSON = Any  # a JSON value as json.loads returns it

# Numeric limits of every step document (docs/steps.md, "Encoding"): numbers are finite
# IEEE-754 doubles or integers of magnitude at most 2^53 (exact in every JSON reader); names and
# ids are non-empty strings of at most 256 characters, bit strings at most 64 characters.
MAX_INT = 1 << 53
MAX_NAME = 256
MAX_BITS = 64


class StepInputError(ValueError):
    """A pre-state or input that does not decode (a malformed document, not an invalid step)."""


@dataclass(frozen=True)
class Outcome:
    """What a handler did: the post-state and the sends, or `invalid` with the reason."""

    post: JSON = None
    sends: JSON = None
    invalid: str | None = None

    def documents(self) -> dict[str, JSON]:
        if self.invalid is not None:
            return {"invalid": self.invalid}
        return {"post": self.post, "sends": self.sends}


@dataclass(frozen=True)
class Case:
    """One candidate vector: the handler it exercises, its name, pre-state and input."""

    handler: str
    name: str
    pre: JSON
    input: JSON


@dataclass(frozen=True)
class Handler:
    """A handler family: its name (the input's `type` or `op`), the paper rule it implements
    and a sentence for its README."""

    name: str
    rule: str
    doc: str


class StepSystem(ABC):
    """One system's part of the step vectors (module doc)."""

    name: str  # the system's name, as in `pubsub-spec systems` or a claim of OBSERVATIONS.md
    paper: str  # the paper the handlers implement, cited as in docs/
    handlers: tuple[Handler, ...]
    # (module file relative to the repository root, function names): the handler functions of
    # the reference whose branches the vectors must take (scripts/step_coverage.py)
    coverage: tuple[tuple[str, tuple[str, ...]], ...]
    # the first valid candidates of each handler kept whatever arcs they take: data-dependent
    # rules (which slice, which record) need cases beyond those that reach a new branch
    at_least: int = 4

    @abstractmethod
    def handler_of(self, step_input: JSON) -> str:
        """The handler an input goes to (its message type or op)."""

    @abstractmethod
    def apply(self, pre: JSON, step_input: JSON) -> Outcome:
        """Run the reference's handler on the decoded pre-state and input; encode the result."""

    @abstractmethod
    def candidates(self) -> Iterator[Case]:
        """Candidate cases, in a fixed order (every random choice seeded)."""

    @abstractmethod
    def schema(self) -> dict[str, JSON]:
        """The JSON Schema of pre.json, input.json, post.json and sends.json (under $defs)."""

    @abstractmethod
    def roundtrip(self, document: str, value: JSON) -> JSON:
        """Decode `value` as the named document (`pre`, `input`, `post`) and encode it again."""

    def keep(self, case: Case) -> bool:
        """Whether a candidate is kept whatever arcs it takes (model-derived cases: every
        distinct one is a vector)."""
        return False

    def prepare(self) -> None:
        """Forget the memo caches of the handler functions before a candidate is traced, so
        that the arcs it takes do not depend on what ran before in the process."""
        return None

    def handler(self, name: str) -> Handler:
        for h in self.handlers:
            if h.name == name:
                return h
        raise KeyError(name)


# -- canonical JSON --------------------------------------------------------------------------


def canonical(value: JSON) -> str:
    """The bytes a document is committed as: sorted keys, two-space indent, no NaN."""
    return json.dumps(value, sort_keys=True, indent=1, allow_nan=False) + "\n"


def check_number(value: JSON, where: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StepInputError(f"{where}: expected a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise StepInputError(f"{where}: not finite")
    if isinstance(value, int) and abs(value) > MAX_INT:
        raise StepInputError(f"{where}: integer beyond 2^53")
    return value


def check_name(value: JSON, where: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_NAME:
        raise StepInputError(f"{where}: expected a name of 1 to {MAX_NAME} characters")
    return value


def check_bits(value: JSON, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_BITS or value.strip("01"):
        raise StepInputError(f"{where}: expected a bit string of at most {MAX_BITS} characters")
    return value


def field(obj: JSON, key: str, where: str) -> JSON:
    if not isinstance(obj, dict):
        raise StepInputError(f"{where}: expected an object")
    if key not in obj:
        raise StepInputError(f"{where}: missing field {key!r}")
    return obj[key]


def first_difference(expected: JSON, actual: JSON, path: str = "$") -> str | None:
    """The JSON path of the first place two documents differ (keys in sorted order, lists
    item by item), or None when they are equal. Integers and floats of equal value are equal
    (1 and 1.0), as in JSON."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in actual or key not in expected:
                return f"{path}.{key}"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found is not None:
                return found
        if len(expected) != len(actual):
            return f"{path}[{min(len(expected), len(actual))}]"
        return None
    same_kind = isinstance(expected, bool) == isinstance(actual, bool)
    if same_kind and expected == actual:
        return None
    return path

