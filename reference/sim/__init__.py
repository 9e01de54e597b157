"""reference/sim."""
