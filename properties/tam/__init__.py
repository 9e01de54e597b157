"""Invariants of Tam et al. (DBISP2P 2003): z3 lemmas on intervals and keys."""
