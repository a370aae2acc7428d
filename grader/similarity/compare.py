"""Pairs of submissions of one exercise, scored on the fingerprints they share that the starter code and
the references do not have, with the regions that match."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from grader.records import record
from grader.similarity.tokens import Token, normalised_tokens
from grader.similarity.winnow import K, Fingerprint, kgram_hashes


# Places of one fingerprint kept per file: a line repeated 10,000 times (or 30,000 nested brackets) is one
# piece of evidence, and pairing every place of it in one file with every place in the other is quadratic.
MAX_REPEATS = 4
# Regions listed per pair, the longest first: each is checked against the others (quadratic in them).
MAX_REGIONS = 200


@dataclass
class Document:
    """One student's file for one exercise, fingerprinted, with what in it is the exercise's own code."""

    student: str
    file: str  # the file's name, as the student called it
    source: str
    fingerprint: Fingerprint
    own: dict[int, list[int]]  # the winnowed hashes the boilerplate does not have -> their positions
    boilerplate_tokens: set[int]  # positions of tokens inside a k-gram of the starter or a reference
    own_tokens: int  # tokens that the own fingerprints cover: what a match can cover at most


@record
class Region:
    """A run of code the two files share: first and last line in each (1-based, inclusive)."""

    a_lines: tuple[int, int]
    b_lines: tuple[int, int]


@record
class Pair:
    exercise: str
    a: Document
    b: Document
    score: float  # the share of both files' own fingerprinted tokens that the other file has too, in [0, 1]
    regions: tuple[Region, ...]


def boilerplate_hashes(sources: list[str], k: int = K) -> set[int]:
    """Every k-gram of the starter and the references (not only the winnowed ones), so that none of their
    code counts, wherever a window happens to fall in a student's file."""
    hashes: set[int] = set()
    for source in sources:
        hashes.update(kgram_hashes([t.text for t in normalised_tokens(source)], k))
    return hashes


def document(student: str, file: str, source: str, boilerplate: set[int], k: int = K) -> Document:
    fingerprint = Fingerprint.of(normalised_tokens(source), k)
    inherited = {i for start, value in enumerate(fingerprint.hashes) if value in boilerplate
                 for i in range(start, start + k)}
    own = {value: positions[:MAX_REPEATS] for value, positions in fingerprint.selected.items()
           if value not in boilerplate}
    coverable = len(_covered(own, own.keys(), inherited, k))
    return Document(student, file, source, fingerprint, own, inherited, coverable)


def compare(exercise: str, a: Document, b: Document, k: int = K) -> Pair:
    shared = a.own.keys() & b.own.keys()
    if not shared:
        return Pair(exercise, a, b, 0.0, ())
    covered = (len(_covered(a.own, shared, a.boilerplate_tokens, k))
               + len(_covered(b.own, shared, b.boilerplate_tokens, k)))
    score = min(1.0, covered / (a.own_tokens + b.own_tokens))
    return Pair(exercise, a, b, score, _regions(a, b, shared, k))


def all_pairs(exercise: str, documents: list[Document], k: int = K) -> list[Pair]:
    """Every pair of the exercise's documents, highest score first (ties by name, so the order is stable)."""
    pairs = [compare(exercise, a, b, k) for a, b in itertools.combinations(documents, 2)]
    return sorted(pairs, key=lambda p: (-p.score, p.a.student, p.b.student))


def _covered(own: dict[int, list[int]], chosen: Iterable[int], boilerplate: set[int], k: int) -> set[int]:
    """The tokens of the chosen fingerprints' k-grams, less the starter's and the references'."""
    return {i for value in chosen for start in own[value] for i in range(start, start + k)} - boilerplate


def _regions(a: Document, b: Document, shared: set[int], k: int) -> tuple[Region, ...]:
    """Matches that keep the same offset between the files and follow each other closely are one region: a
    reordered function is a region of its own, at its own offset."""
    matches = sorted((pb - pa, pa, pb) for value in shared for pa in a.own[value] for pb in b.own[value])
    runs: list[list[tuple[int, int]]] = []
    last: tuple[int, int] | None = None
    for offset, pa, pb in matches:
        if last is not None and last[0] == offset and pa <= last[1] + k:
            runs[-1].append((pa, pb))
        else:
            runs.append([(pa, pb)])
        last = (offset, pa)
    runs = sorted(runs, key=len, reverse=True)[:MAX_REGIONS]
    regions = {Region(_lines(a.fingerprint.tokens, run[0][0], run[-1][0] + k),
                      _lines(b.fingerprint.tokens, run[0][1], run[-1][1] + k)) for run in runs}
    # A line repeated inside a region (three .append()s in a row) also matches its neighbours: not news.
    kept = [r for r in regions if not any(o != r and _within(r.a_lines, o.a_lines) and _within(r.b_lines, o.b_lines)
                                          for o in regions)]
    return tuple(sorted(kept, key=lambda r: (r.a_lines, r.b_lines)))


def _within(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _lines(tokens: list[Token], start: int, end: int) -> tuple[int, int]:
    return tokens[start].line, tokens[min(end, len(tokens)) - 1].end_line
