"""Brute force: every one of the n**n column tuples, checked whole. Fine to n = 7, far too slow at n = 9."""

import itertools


def solve(n):
    layouts = []
    for cols in itertools.product(range(n), repeat=n):
        if len(set(cols)) < n:
            continue
        if len({r - c for r, c in enumerate(cols)}) < n or len({r + c for r, c in enumerate(cols)}) < n:
            continue
        layouts.append("/".join("." * c + "#" + "." * (n - 1 - c) for c in cols))
    return sorted(layouts)
