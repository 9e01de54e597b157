"""properties/lbdd."""
