"""Argument types the commands share: argparse turns their refusal into the command's usage and status 2."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole_number(least: int, most: int | None = None) -> Callable[[str], int]:
    """An argparse `type` taking a whole number from `least` (to `most`, when given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}; a whole number is needed") from None
        if value < least or (most is not None and value > most):
            span = f"at least {least}" if most is None else f"between {least} and {most}"
            raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
        return value

    return parse
