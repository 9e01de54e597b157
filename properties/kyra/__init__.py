"""Invariants of Kyra and its baselines (seed 001): checkers, mutants, z3 lemmas."""
