"""reference/thesis."""
