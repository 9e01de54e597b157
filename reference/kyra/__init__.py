"""Kyra (Cao & Singh, INFOCOM 2004) with its Siena and multicast-group baselines."""
