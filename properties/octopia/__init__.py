"""OctopiA invariants: workloads, mutants and checks (docs/octopia.md)."""
