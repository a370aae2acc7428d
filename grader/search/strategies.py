"""A spec's strategies (model.Strategy, checked by grader/search_spec.py) as Hypothesis strategies."""

from __future__ import annotations

import marshal
from typing import TYPE_CHECKING

from grader.model import Strategy

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

DEFAULT_MAX_SIZE = 10  # a collection's size when the spec writes none: small inputs shrink fast and read well


def arguments(args: tuple[tuple[str, Strategy], ...]) -> SearchStrategy[tuple[object, ...]]:
    """The entry's arguments, in order, as one tuple."""
    import hypothesis.strategies as st

    return st.tuples(*(build(strategy) for _, strategy in args))


def build(strategy: Strategy) -> SearchStrategy[object]:
    import hypothesis.strategies as st

    options = dict(strategy.options)
    parts = [build(part) for part in strategy.parts]
    name = strategy.name
    if name == "integers":
        return st.integers(min_value=options.get("min"), max_value=options.get("max"))  # type: ignore[arg-type]
    if name == "floats":
        return st.floats(min_value=options.get("min"), max_value=options.get("max"),  # type: ignore[arg-type]
                         allow_nan=bool(options.get("nan", False)),
                         allow_infinity=bool(options.get("infinity", False)))
    if name == "text":
        alphabet = options.get("alphabet")
        return st.text(alphabet=alphabet if isinstance(alphabet, str) else st.characters(),
                       **_sizes(options))
    if name == "booleans":
        return st.booleans()
    if name == "none":
        return st.none()
    if name in ("just", "sampled"):
        values = marshal.loads(options["values"])  # type: ignore[arg-type]
        return st.just(values[0]) if name == "just" else st.sampled_from(values)
    if name == "lists":
        return st.lists(parts[0], unique=bool(options.get("unique", False)), **_sizes(options))
    if name == "dicts":
        return st.dictionaries(parts[0], parts[1], **_sizes(options))
    if name == "tuples":
        return st.tuples(*parts)
    if name == "one_of":
        return st.one_of(*parts)
    raise ValueError(f"unknown strategy {name!r}")  # the spec's reader lets none through


def _sizes(options: dict[str, object]) -> dict[str, int]:
    least = int(options.get("min_size", 0))  # type: ignore[call-overload]
    return {"min_size": least, "max_size": int(options.get("max_size", max(least, DEFAULT_MAX_SIZE)))}  # type: ignore[call-overload]
