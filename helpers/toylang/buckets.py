"""Length buckets: the training lengths and the test buckets the course scores by (one data file each)."""
from __future__ import annotations

TEST_BUCKETS: tuple[tuple[int, int], ...] = ((4, 10), (11, 20), (21, 30), (31, 40), (41, 50))
TRAIN_LENGTHS: tuple[int, int] = (4, 40)


def bucket_name(lo: int, hi: int) -> str:
    """Label of a length bucket: bucket_name(4, 10) == '4-10'."""
    return f"{lo}-{hi}"


#: The test bucket whose sentences are all longer than any training sentence.
UNSEEN_BUCKET: str = next(bucket_name(lo, hi) for lo, hi in TEST_BUCKETS if lo > TRAIN_LENGTHS[1])
