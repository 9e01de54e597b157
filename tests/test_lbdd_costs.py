"""LBDD rules that change cost (who forwards to whom) but may leave the delivery set intact,
pinned against LBDD §3.2 directly: the distance is the XOR of the digests (not their
difference) and bucket m holds the distances in [2^(m-1), 2^m)."""

from __future__ import annotations

from pubsub_spec.reference.lbdd.algorithms import bucket_no, bucket_of_distance, digest, distance

ADDRS = [f"10.0.{i // 250}.{i % 250 + 1}" for i in range(60)]
SOURCE = ADDRS[0]


def test_distance_is_the_xor_of_the_digests() -> None:
    """LBDD §3.2: distance(Ni, Nj) = digest_i XOR digest_j."""
    differs = 0
    for a in ADDRS[:20]:
        for b in ADDRS[:20]:
            assert distance(a, b) == digest(a) ^ digest(b)
            assert distance(a, b) == distance(b, a)
            differs += distance(a, b) != abs(digest(a) - digest(b))
    assert distance(SOURCE, SOURCE) == 0
    assert differs > 0  # so a subtraction would fail this test


def test_xor_worked_example() -> None:
    """Digests 0b0110 and 0b0011: XOR 0b0101 = 5 (bucket 3), while the difference is 3
    (bucket 2): the two distances put the node in different buckets."""
    assert 0b0110 ^ 0b0011 == 5 and bucket_of_distance(5) == 3
    assert abs(0b0110 - 0b0011) == 3 and bucket_of_distance(3) == 2


def test_bucket_intervals() -> None:
    """Bucket m iff 2^(m-1) <= d < 2^m (§3.2; the printed [2m-1, 2m) is erratum LBDD-E3)."""
    for m in range(1, 33):
        assert bucket_of_distance(2 ** (m - 1)) == m
        assert bucket_of_distance(2**m - 1) == m
    assert bucket_of_distance(16) == 5  # the printed interval would give no bucket
    assert bucket_of_distance(0) == 1  # a digest tie with the source: decision D-L4


def test_buckets_of_nodes_follow_the_xor_distance() -> None:
    by_xor = [bucket_no(SOURCE, n) for n in ADDRS[1:]]
    assert by_xor == [max(1, (digest(SOURCE) ^ digest(n)).bit_length()) for n in ADDRS[1:]]
    by_sub = [max(1, abs(digest(SOURCE) - digest(n)).bit_length()) for n in ADDRS[1:]]
    assert by_xor != by_sub  # buckets by subtraction would differ on these addresses
    assert bucket_no(SOURCE, SOURCE) == 0
