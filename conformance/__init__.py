"""The conformance suite: trace format, Spark pipeline and oracle, runner, adapters, reports."""
