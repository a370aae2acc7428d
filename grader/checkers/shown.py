"""Values as reports write them: a repr that never fails, cut to a width, and two long ones cut to the same
window around their first difference. The checkers' feedback and every form's expected and actual use it."""

from __future__ import annotations

from collections.abc import Iterator

from grader.model import Opaque


def safe_repr(value: object) -> str:
    """repr(), or what the value is when repr() refuses it (an int of more than 4300 digits, deep nesting) or
    fails (a library's repr of a value decoded from the sandbox: a frame whose column pandas cannot format)."""
    try:
        return repr(value)
    except (ValueError, RecursionError, MemoryError):
        return f"<{type_name(value)} too large to show>"
    except Exception:  # noqa: BLE001 - a report shows what it cannot write as its type: a verdict, never a crash
        return f"<{type_name(value)} that cannot be shown>"


def show(value: object, width: int = 80) -> str:
    text = _Repr(value).upto(width + 1)
    return text if len(text) <= width else text[: width - 3] + "..."


def show_pair(expected: object, actual: object, width: int = 2000) -> tuple[str, str]:
    """Both values' reprs; long ones cut to the same window around their first difference, so that a list
    wrong at index 229 shows index 229, not its first items. Only as much of each repr is made as the
    window needs: a wrong answer of a million items costs the text up to its first difference."""
    want, got = _Repr(expected), _Repr(actual)
    if _same(expected, actual):  # equal: nothing to point at, the head shows
        return _window(want.upto(width + 1), 0, width), _window(got.upto(width + 1), 0, width)
    size = width + 1
    while size <= _LAZY:
        want_text, got_text = want.upto(size), got.upto(size)
        at = first_difference(want_text, got_text)
        if at < min(len(want_text), len(got_text)) or len(want_text) < size or len(got_text) < size:
            break  # a character differs, or one ended (a prefix of the other)
        size *= 2
    else:  # the same far into both: C's repr of the whole is faster than more pieces
        want, got = _Whole(safe_repr(expected)), _Whole(safe_repr(actual))
        want_text, got_text = want.text, got.text
        at = first_difference(want_text, got_text)
    if max(len(want_text), len(got_text)) <= width:
        return want_text, got_text
    start = max(0, at - width // 4)
    return _window(want.upto(start + width + 1), start, width), _window(got.upto(start + width + 1), start, width)


def _same(expected: object, actual: object) -> bool:
    """Equal as plain data (lists of numbers compared in C); False for what cannot say (arrays, frames)."""
    if type(expected) is not type(actual):
        return False
    try:
        return bool(expected == actual)
    except Exception:  # noqa: BLE001 - an array's elementwise answer, a frame's refusal: not the same
        return False


_LAZY = 1 << 14  # characters of two reprs compared piece by piece before the rest is made whole
_CONTAINERS = (list, tuple, dict)
_DEPTH = 50  # containers nested deeper are shown by safe_repr, which knows how to refuse them


class _Repr:
    """A value's repr made lazily from the front: `upto(n)` is its first n characters (or all of it), built
    piece by piece for lists, tuples and dicts, whose repr is their items' with punctuation."""

    def __init__(self, value: object) -> None:
        self.pieces = _pieces(value, 0)
        self.parts: list[str] = []
        self.length = 0
        self.text = ""

    def upto(self, size: int) -> str:
        if self.length < size and self.pieces is not None:
            for piece in self.pieces:
                self.parts.append(piece)
                self.length += len(piece)
                if self.length >= size:
                    break
            else:
                self.pieces = None
            self.text = "".join(self.parts)
            self.parts = [self.text]
        return self.text[:size]


class _Whole:
    def __init__(self, text: str) -> None:
        self.text = text

    def upto(self, size: int) -> str:
        return self.text[:size]


def _pieces(value: object, depth: int) -> Iterator[str]:
    kind = type(value)
    if kind not in _CONTAINERS or depth > _DEPTH:
        yield safe_repr(value)
        return
    if kind is dict:
        yield "{"
        for number, (key, item) in enumerate(value.items()):  # type: ignore[attr-defined]
            if number:
                yield ", "
            yield from _pieces(key, depth + 1)
            yield ": "
            yield from _pieces(item, depth + 1)
        yield "}"
        return
    yield "[" if kind is list else "("
    for number, item in enumerate(value):  # type: ignore[attr-defined]
        if number:
            yield ", "
        yield from _pieces(item, depth + 1)
    yield "]" if kind is list else ",)" if len(value) == 1 else ")"  # type: ignore[arg-type]


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
    if value is None:
        return "None"
    return getattr(value, "type_name", "?") if type(value) in _NAMED else type(value).__name__


from grader.sandbox.wire import Fields, Items  # noqa: E402 - the reply's values that carry their type's name

_NAMED = (Opaque, Items, Fields)
