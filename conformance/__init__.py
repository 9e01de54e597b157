"""The conformance suite: trace format, Spark pipeline and oracle, runner, adapters, reports."""

# One import name (docs/layout.md, "One namespace"): this folder is the package
# pubsub_spec.conformance, reached through the symlink pubsub_spec/conformance. From the
# repository root the same file would also load as a package `conformance` of its own: a second
# copy of every module, whose classes are not pubsub_spec.conformance's.
if __name__ != "pubsub_spec.conformance":
    raise ImportError(f"import pubsub_spec.conformance, not {__name__}", name=__name__)
