"""The committed vector corpus is up to date and every built-in implementation passes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.vectors import VECTORS, make, run
from conformance.verdict import overall


def test_corpus_is_reproducible(tmp_path: Path) -> None:
    made = make(tmp_path)
    assert len(made) >= 16
    for path in sorted(tmp_path.iterdir()):
        assert (VECTORS / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize("impl", ["reference", "reference-multicast", "oracle-python"])
def test_builtin_implementations_pass_the_vectors(impl: str) -> None:
    verdicts = run(impl)
    assert overall(verdicts) == "pass", [v.describe() for v in verdicts if v.verdict != "pass"]
    assert sum(v.checked for v in verdicts) > 100
