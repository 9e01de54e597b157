"""reference/overlay."""
