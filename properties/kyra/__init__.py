"""Invariants of Kyra and its baselines (Cao & Singh, INFOCOM 2004): checkers, mutants, lemmas."""
