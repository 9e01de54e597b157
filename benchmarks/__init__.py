"""Benchmarks: scripts that print figures (run with python -m benchmarks.NAME)."""
