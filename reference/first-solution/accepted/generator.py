"""A generator of all solutions in search order; next() takes only the first, so nothing else is searched."""


def solutions(n, row=0, placed=()):
    if row == n:
        yield list(placed)
        return
    for col in range(n):
        if all(c != col and abs(c - col) != row - r for r, c in enumerate(placed)):
            yield from solutions(n, row + 1, placed + (col,))


def first_solution(n):
    return next(solutions(n), None)
