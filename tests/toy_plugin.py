"""Registers the toy system of tests/toy_system.py when imported: name it in PUBSUB_SPEC_SYSTEMS
(reference/registry.py) and every process of a run knows it."""

from __future__ import annotations

from tests.toy_system import register

register()
