"""The sequential, fully typed reference of content-based pub/sub over a Pastry-like DHT.

One module per concept; names follow the papers (see docs/thesis.md for the map).
"""

# One import name (docs/layout.md, "One namespace"): this folder is the package
# pubsub_spec.reference, reached through the symlink pubsub_spec/reference. From the repository
# root the same file would also load as a package `reference` of its own: a second copy of every
# module, whose classes are not pubsub_spec.reference's.
if __name__ != "pubsub_spec.reference":
    raise ImportError(f"import pubsub_spec.reference, not {__name__}", name=__name__)
