"""A valid placement as a tuple where the statement asks for a list."""


def any_queens(n):
    if n in (2, 3):
        return None
    evens = list(range(1, n, 2))
    odds = list(range(0, n, 2))
    if n % 6 == 2:
        odds = [2, 0] + odds[3:] + [4]
    elif n % 6 == 3:
        evens = evens[1:] + [1]
        odds = odds[2:] + [0, 2]
    return tuple(evens + odds)
