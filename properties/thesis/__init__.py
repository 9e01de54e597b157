"""properties/thesis."""
