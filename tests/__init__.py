"""The test suite (a package, so that shared fixtures import as tests.<module>)."""
