"""A record behaves as a frozen dataclass: set once by __init__, compared and hashed by value, copied by
replace, pickled and deep-copied whole."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError, field, fields, replace

import pytest

from grader import model
from grader.model import CheckerSpec, Limits
from grader.records import record


@record
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)


def test_a_field_cannot_be_assigned_again_nor_deleted() -> None:
    point = Point(1, 2)
    with pytest.raises(FrozenInstanceError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        point.tags = ("a",)  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del point.y  # type: ignore[misc]
    assert (point.x, point.y, point.tags) == (1, 2, ())


def test_no_new_attribute_can_be_added() -> None:
    with pytest.raises(FrozenInstanceError):
        Point(1).z = 3  # type: ignore[attr-defined]


def test_records_are_equal_and_hash_alike_by_value() -> None:
    assert Point(1, 2) == Point(1, 2) != Point(2, 1)
    assert len({Point(1, 2), Point(1, 2), Point(3)}) == 2
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=())"


def test_a_method_the_class_writes_itself_is_kept() -> None:
    @record
    class Shown:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Shown("queen")) == "<queen>"
    assert Shown("queen") == Shown("queen") and hash(Shown("queen")) == hash(Shown("queen"))


def test_records_of_different_classes_never_compare_equal() -> None:
    @record
    class Other:
        x: int
        y: int = 0
        tags: tuple[str, ...] = ()

    assert Point(1) != Other(1)


def test_replace_makes_a_changed_copy_and_leaves_the_original() -> None:
    point = Point(1, 2)
    moved = replace(point, y=7)
    assert (moved.x, moved.y, point.y) == (1, 7, 2)
    with pytest.raises(FrozenInstanceError):
        moved.y = 8  # type: ignore[misc]


def test_pickled_and_deep_copied_records_come_back_equal_and_still_frozen() -> None:
    test = model.Test(name="n = 4", call="f(4)", stdin=None, compare="value", expect=(1, 2), hidden=False,
                      big=False, points=1.0, checker=CheckerSpec("exact"), limits=Limits(cpu=1.5))
    for back in (pickle.loads(pickle.dumps(test)), copy.deepcopy(test), copy.copy(test)):
        assert back == test and hash(back) == hash(test)
        with pytest.raises(FrozenInstanceError):
            back.name = "other"  # type: ignore[misc]


def test_the_grader_s_own_records_are_frozen() -> None:
    limits = Limits()
    name = fields(limits)[0].name
    with pytest.raises(FrozenInstanceError):
        setattr(limits, name, 99)
