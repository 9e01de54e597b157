"""Invariants of Tam et al. (seed 004): z3 lemmas on intervals and keys."""
