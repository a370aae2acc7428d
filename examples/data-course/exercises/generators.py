"""Input generators of the data course: `given: {name: {generator: NAME, args: {...}}}` in a spec calls
NAME(**args) here, in the grader. Each is deterministic: the same arguments give the same input."""

import random


def sales(rows: int, stores: int, seed: int) -> dict[str, list]:
    """`rows` sales as columns: the store (0 to stores - 1) and the amount (cents, as a float)."""
    rng = random.Random(seed)
    return {"store": [rng.randrange(stores) for _ in range(rows)],
            "amount": [rng.randrange(1, 100_000) / 100 for _ in range(rows)]}
