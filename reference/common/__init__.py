"""reference/common."""
