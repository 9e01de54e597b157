"""The `pubsub-spec` command line (the only code outside the layout folders: it ties them)."""
