"""Tam, Azimi and Jacobsen: schema-based content-based pub/sub over Scribe (DBISP2P 2003)."""
