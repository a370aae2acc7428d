from itertools import product


def solve(n):
    layouts = []
    for cols in product(range(n), repeat=n):
        if len(set(cols)) != n:
            continue
        if len(set(r - c for r, c in enumerate(cols))) != n:
            continue
        if len(set(r + c for r, c in enumerate(cols))) != n:
            continue
        layouts.append("/".join("." * c + "#" + "." * (n - c - 1) for c in cols))
    return sorted(layouts)
