"""The record of one argument's values in a spec's `search:` (grader/search), a leaf below the model."""

from __future__ import annotations

from grader.records import record


@record
class Strategy:
    """One argument's values as a spec's `search:` declares them (built into Hypothesis by grader/search)."""

    name: str  # integers, floats, text, booleans, none, just, sampled, lists, dicts, tuples, one_of
    options: tuple[tuple[str, object], ...] = ()  # bounds and choices: min, max, min_size, alphabet, values...
    parts: tuple[Strategy, ...] = ()  # what it is made of: a list's items, a dict's keys and values, a tuple's
