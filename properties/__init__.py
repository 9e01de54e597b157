"""The invariants as code: z3 lemmas, Hypothesis strategies and state machines, mutants."""

# One import name (docs/layout.md, "One namespace"): this folder is the package
# pubsub_spec.properties, reached through the symlink pubsub_spec/properties. From the repository
# root the same file would also load as a package `properties` of its own: a second copy of every
# module, whose classes are not pubsub_spec.properties's.
if __name__ != "pubsub_spec.properties":
    raise ImportError(f"import pubsub_spec.properties, not {__name__}", name=__name__)
