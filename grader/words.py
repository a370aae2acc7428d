"""English in one place: counts with their noun ("1 test", "2 tests") and articles ("an int", "a list").
Plain strings only, no imports from grader: checkers and every output use it."""

from __future__ import annotations

_IRREGULAR = {"index": "indices", "is": "are", "was": "were", "this": "these", "it": "they"}
_VOWEL_SOUND_EXCEPTIONS = {"one", "unicode", "unique", "unit", "user", "usual", "utf-8"}  # a "u" said "you"
_HOUR = {"hour", "honest"}  # a silent h


def plural(noun: str, count: int) -> str:
    """The noun as it goes with `count`: test/tests, index/indices."""
    if count == 1:
        return noun
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def count(number: int, noun: str) -> str:
    """'1 test', '3 tests', '0 items'."""
    return f"{number} {plural(noun, number)}"


def article(word: str) -> str:
    """'a' or 'an' for the word as it is said: an int, a list, an hour, a user."""
    lower = word.lower()
    if not lower:
        return "a"
    if any(lower.startswith(prefix) for prefix in _VOWEL_SOUND_EXCEPTIONS):
        return "a"
    if any(lower.startswith(prefix) for prefix in _HOUR):
        return "an"
    return "an" if lower[0] in "aeiou" else "a"


def a(word: str) -> str:
    """'an int', 'a str'."""
    return f"{article(word)} {word}"


def listing(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
