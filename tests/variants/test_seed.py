"""The seed: a function of the course's secret, the exercise and the student only."""

from __future__ import annotations

import pytest

from grader.variants.seed import seed_of


def test_the_seed_depends_on_secret_exercise_and_student_only() -> None:
    seed = seed_of(b"secret", "shift", "ann")
    assert seed == seed_of(b"secret", "shift", "ann") and len(seed.short) == 8
    assert len({seed.hex, seed_of(b"other", "shift", "ann").hex, seed_of(b"secret", "shift2", "ann").hex,
                seed_of(b"secret", "shift", "ben").hex}) == 4
    assert 0 <= seed.value < 2 ** 64


@pytest.mark.parametrize("student", ["", "ann\0ben", "é\u202e", "\udcff-not-utf8", "x" * 10_000],
                         ids=["empty", "nul", "bidi", "surrogate", "long"])
def test_odd_student_ids_have_seeds_of_their_own(student: str) -> None:
    # An exercise id holds no NUL (the spec's file name is its id), so the separator cannot be forged.
    assert seed_of(b"secret", "shift", student) != seed_of(b"secret", "shift", student + "x")
