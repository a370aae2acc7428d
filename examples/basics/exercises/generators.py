"""Input generators of the basics course: `given: {name: {generator: NAME, args: {...}}}` in a spec calls
NAME(**args) here, in the grader. Each is deterministic: the same arguments give the same input."""

import random
import string


def random_floats(count: int, seed: int, low: float = -1000.0, high: float = 1000.0) -> list[float]:
    """`count` floats spread evenly over [low, high)."""
    rng = random.Random(seed)
    return [rng.uniform(low, high) for _ in range(count)]


def random_words(count: int, seed: int, longest: int = 8) -> list[str]:
    """`count` words of 1 to `longest` letters in mixed case, with repeats that differ only in case."""
    rng = random.Random(seed)
    letters = string.ascii_letters
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, longest))) for _ in range(count)]
    for i in range(0, count, 10):  # every tenth word again, in another case: ties for the second key
        words[i] = words[i // 2].swapcase()
    return words
