"""The invariants as code: z3 lemmas, Hypothesis strategies and state machines, mutants."""
