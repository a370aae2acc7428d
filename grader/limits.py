"""Every limit read from outside the program (a spec, a course's calibration file, the cache, a command line)
passes one check here: a finite number, positive (or at least its documented least), at most its documented
bound. Callers say where the value came from; this module says what is wrong with it. docs/security-inputs.md
lists the bounds."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple


class Bound(NamedTuple):
    unit: str
    most: float
    whole: bool = False  # a whole number (MiB, KiB, a count)
    least: float = 0.0  # the value must be more than this (or equal, with `inclusive`)
    inclusive: bool = False


HOUR = 3600.0
# The bounds: far above what any course needs, far below what would overflow an rlimit or stall a grade.
BOUNDS: dict[str, Bound] = {
    "cpu": Bound("seconds of CPU", HOUR),
    "wall": Bound("seconds", 4 * HOUR),
    "memory": Bound("MiB", 1 << 20, whole=True),  # 1 TiB
    "output": Bound("KiB", 1 << 20, whole=True),  # 1 GiB
    "processes": Bound("processes", 4096, whole=True),
    "open_files": Bound("open files", 65536, whole=True),
    "file_size": Bound("MiB", 1 << 20, whole=True),
    "floor": Bound("seconds", HOUR),  # calibration: the least CPU limit
    "multiplier": Bound("times", 1000, least=1, inclusive=True),
    "speed": Bound("seconds", HOUR, least=0, inclusive=True),  # the speed probe's time; 0: not measured
    "read_timeout": Bound("seconds", HOUR),
    "wait": Bound("seconds", 7 * 24 * HOUR),  # how long `grader submit` waits for its grading
}


class LimitError(ValueError):
    """A limit that is no finite number in its range; the message says what it must be."""


def what(key: str) -> str:
    """'a number of seconds of CPU more than 0 and at most 3600', as every refusal words it."""
    bound = BOUNDS[key]
    number = "a whole number of" if bound.whole else "a number of"
    least = f"at least {_plain(bound.least)}" if bound.inclusive else f"more than {_plain(bound.least)}"
    return f"{number} {bound.unit} {least} and at most {_plain(bound.most)}"


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


def checked(key: str, value: object) -> float:
    """`value` as the limit `key`, or LimitError: bools, strings, NaN, infinities and out-of-range numbers
    are refused, never clamped (a limit someone wrote wrong is theirs to fix)."""
    bound = BOUNDS[key]
    wrong = (isinstance(value, bool) or not isinstance(value, (int, float))
             or (bound.whole and isinstance(value, float) and not value.is_integer()))
    if not wrong:
        number = float(value)  # type: ignore[arg-type]
        too_low = number < bound.least if bound.inclusive else number <= bound.least
        if math.isfinite(number) and not too_low and number <= bound.most:
            return number
    shown = value if isinstance(value, (int, float)) and not isinstance(value, bool) else json.dumps(value, default=repr)
    raise LimitError(f"must be {what(key)}, not {shown}")


def argument(key: str) -> Callable[[str], float]:
    """An argparse `type` for the limit `key`: a bad value is the command's usage error (exit status 2)."""
    import argparse  # only where a command line is read

    def parse(text: str) -> float:
        try:
            number: object = float(text)
        except ValueError:
            number = text
        try:
            return checked(key, number)
        except LimitError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def json_line(text: str, path: Sequence[str]) -> int:
    """The 1-based line of the key at `path` ("tests", "t1", "limit") in a JSON text, found key by key in
    order; the file's first line when the text does not hold it so (written by hand, oddly spaced)."""
    position = 0
    for key in path:
        found = text.find(json.dumps(key) + ":", position)
        if found < 0:
            found = text.find(json.dumps(key), position)
        if found < 0:
            return 1
        position = found + 1
    return text.count("\n", 0, position) + 1
