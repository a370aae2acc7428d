"""Similarity across a class: which submissions of an exercise share code beyond the starter and the
references. A signal for a person to look at, never a verdict (docs/similarity.md)."""
