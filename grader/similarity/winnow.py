"""Winnowing (Schleimer, Wilkerson and Aiken 2003, as MOSS does): hash every k tokens in a row, keep the
smallest hash of each window of w hashes. Any run of k + w - 1 tokens two files share is then found."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.similarity.tokens import Token

K = 12  # tokens per k-gram: shorter runs ("for N in range ( N ) :") are what every solution shares
WINDOW = 6


@dataclass
class Fingerprint:
    """One file's tokens, the hash of every k-gram, and the winnowed hashes with where each starts."""

    tokens: list[Token]
    hashes: list[int]
    selected: dict[int, list[int]] = field(default_factory=dict)  # hash -> positions of its k-grams

    @classmethod
    def of(cls, tokens: list[Token], k: int = K, window: int = WINDOW) -> Fingerprint:
        hashes = kgram_hashes([t.text for t in tokens], k)
        return cls(tokens, hashes, winnow(hashes, window))


def kgram_hashes(texts: Sequence[str], k: int = K) -> list[int]:
    # A stable hash (not hash(), which changes with PYTHONHASHSEED): the same file, the same fingerprints.
    return [int.from_bytes(hashlib.blake2b("\x1f".join(texts[i:i + k]).encode(), digest_size=8).digest(), "big")
            for i in range(len(texts) - k + 1)]


def winnow(hashes: Sequence[int], window: int = WINDOW) -> dict[int, list[int]]:
    """The rightmost smallest hash of each window; a position is kept once however many windows pick it."""
    selected: dict[int, list[int]] = {}
    last = -1
    for start in range(max(len(hashes) - window + 1, 1 if hashes else 0)):
        span = range(start, min(start + window, len(hashes)))
        position = min(span, key=lambda i: (hashes[i], -i))
        if position != last:
            selected.setdefault(hashes[position], []).append(position)
            last = position
    return selected
