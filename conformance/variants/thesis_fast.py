"""The built-in `reference-fast`: the thesis system on its fast substrate, which lives with the
reference (reference/thesis/substrate_fast.py); re-exported here for the conformance suite."""

from pubsub_spec.reference.thesis.substrate_fast import (
    FastStreamingSystem,
    FastSubstrate,
    FastTwoDTreeSystem,
)

__all__ = ["FastStreamingSystem", "FastSubstrate", "FastTwoDTreeSystem"]
