"""The byte-size model every simulated system counts its messages with (decision D-MSG in
docs/thesis.md): a compact binary encoding, a 48-byte header (type, source id, destination key)
plus the payload, 20 bytes per 160-bit id. The thesis measured Java serialization (thesis
§4.3.1); the model keeps the sizes comparable across systems, not equal to any wire format.

Each system's `messages.py` sizes its own message types from these parts; the overlay's Scribe
messages (reference/overlay/scribe.py) use the same header and id.
"""

from __future__ import annotations

import functools

from pubsub_spec.reference.common.model import Event, Subscription

HEADER = 48  # bytes: type, source id, destination key
ID = 20  # a 160-bit id (Pastry node ids and keys, thesis §2.1.2)


def sub_size(s: Subscription) -> int:
    """A subscription: its id, its id and schema names, and per predicate the attribute name
    and its two bounds (8 bytes each)."""
    return ID + len(s.id) + len(s.schema) + sum(len(p.attribute) + 16 for p in s.predicates)


@functools.lru_cache(maxsize=4096)  # a pure function, called at every send of an event
def event_size(e: Event) -> int:
    """An event: its id, its id and schema names, and per value the attribute name and the
    value (8 bytes)."""
    return ID + len(e.id) + len(e.schema) + sum(len(a) + 8 for a, _ in e.values)
