"""The TLA+ specifications: modules, models (.cfg) and their manifest, one folder per system;
data of the package, read through importlib.resources (docs/tla.md)."""

# One import name (docs/layout.md, "One namespace"): this folder is the package pubsub_spec.spec,
# reached through the symlink pubsub_spec/spec. From the repository root the same file would also
# load as a package `spec` of its own: a second, empty package.
if __name__ != "pubsub_spec.spec":
    raise ImportError(f"import pubsub_spec.spec, not {__name__}", name=__name__)
