"""An exercise of our own whose starter code is most of a solution: only one function's body is left to write."""

from __future__ import annotations

from pathlib import Path

STARTER = '''\
"""Word tally: read a text, count each word, print the ten commonest."""
import sys


def read_words(text):
    """The words of the text, lower-cased, with punctuation turned into spaces."""
    cleaned = "".join(ch.lower() if ch.isalnum() else " " for ch in text)
    return cleaned.split()


def tally(words):
    # Write this function: return a dict that maps each word to how often it occurs.
    pass


def commonest(counts, how_many=10):
    """The most frequent words first; words equally frequent in alphabetical order."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:how_many]


if __name__ == "__main__":
    for word, count in commonest(tally(read_words(sys.stdin.read()))):
        print(f"{word}: {count}")
'''

SPEC = """\
title: Tally the words
kind: function
entry: tally
statement: Return a dict that maps each word to how often it occurs.
starter: |
{starter}
tests:
  - name: two of one word
    call: tally(["a", "b", "a"])
    expect: {{"a": 2, "b": 1}}
"""

BODIES = {
    "with_get": """\
    counts = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    return counts
""",
    "with_counter": """\
    from collections import Counter

    return dict(Counter(words))
""",
}


# Unlike either student's: the references are subtracted too, and this test is about the starter.
REFERENCE_BODY = """\
    result = {}
    for word in sorted(words):
        result.setdefault(word, 0)
        result[word] += 1
    return result
"""


def with_body(body: str) -> str:
    """The starter with the student's body in place of `pass` (the comment too)."""
    return STARTER.replace(
        "    # Write this function: return a dict that maps each word to how often it occurs.\n    pass\n", body)


def write_course(root: Path) -> Path:
    """exercises/tally-words.yaml, with reference/tally-words/accepted/ beside it; returns the exercises folder."""
    exercises = root / "exercises"
    exercises.mkdir(parents=True)
    indented = "".join(f"  {line}\n" if line else "\n" for line in STARTER.splitlines())
    (exercises / "tally-words.yaml").write_text(SPEC.format(starter=indented.rstrip("\n")), encoding="utf-8")
    accepted = root / "reference" / "tally-words" / "accepted"
    accepted.mkdir(parents=True)
    (accepted / "sorted_runs.py").write_text(with_body(REFERENCE_BODY), encoding="utf-8")
    return exercises
