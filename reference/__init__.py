"""The sequential, fully typed reference of content-based pub/sub over a Pastry-like DHT.

One module per concept; names follow the papers (see docs/thesis.md for the map).
"""
