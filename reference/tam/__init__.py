"""Tam, Azimi and Jacobsen: schema-based content-based pub/sub over Scribe (seed 004)."""
