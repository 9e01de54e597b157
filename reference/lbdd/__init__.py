"""reference/lbdd."""
