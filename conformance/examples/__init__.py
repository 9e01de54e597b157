"""Example outside implementations of the conformance protocol."""
