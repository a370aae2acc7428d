"""Values as reports write them: a repr that never fails, cut to a width, and two long ones cut to the same
window around their first difference. The checkers' feedback and every form's expected and actual use it."""

from __future__ import annotations

from grader.model import Opaque


def safe_repr(value: object) -> str:
    """repr(), or what the value is when repr() refuses it (an int of more than 4300 digits, deep nesting)."""
    try:
        return repr(value)
    except (ValueError, RecursionError, MemoryError):
        return f"<{type_name(value)} too large to show>"


def show(value: object, width: int = 80) -> str:
    text = safe_repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def show_pair(expected: object, actual: object, width: int = 2000) -> tuple[str, str]:
    """Both values' reprs; long ones cut to the same window around their first difference, so that a list
    wrong at index 229 shows index 229, not its first items."""
    want, got = safe_repr(expected), safe_repr(actual)
    if max(len(want), len(got)) <= width:
        return want, got
    start = max(0, first_difference(want, got) - width // 4)
    return _window(want, start, width), _window(got, start, width)


def first_difference(a_text: str, b_text: str) -> int:
    """The index of the first character that differs (the shorter's length when one is a prefix). Halving
    with slices compared in C: a character loop took seconds on a million numbers' repr."""
    low, high = 0, min(len(a_text), len(b_text))  # a_text[:low] == b_text[:low] throughout
    if a_text[:high] == b_text[:high]:
        return high
    while high - low > 1:  # and a_text[:high] != b_text[:high]
        middle = (low + high) // 2
        if a_text[low:middle] == b_text[low:middle]:
            low = middle
        else:
            high = middle
    return low


def _window(text: str, start: int, width: int) -> str:
    end = start + width
    return ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")


def type_name(value: object) -> str:
    return "None" if value is None else value.type_name if type(value) is Opaque else type(value).__name__
