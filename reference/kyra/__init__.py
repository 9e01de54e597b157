"""Kyra (Cao & Singh, INFOCOM 2004, seed 001) with its Siena and multicast-group baselines."""
