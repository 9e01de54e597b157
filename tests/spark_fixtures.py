"""One SparkSession per test process, shared by every Spark test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from pubsub_spec.conformance.spark_session import get_spark, ship_code

    session = get_spark()
    ship_code(session)
    yield session
    session.stop()
