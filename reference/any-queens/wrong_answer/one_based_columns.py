"""A valid placement written with columns counted from 1, as the construction is usually stated."""


def any_queens(n):
    if n in (2, 3):
        return None
    evens = list(range(2, n + 1, 2))
    odds = list(range(1, n + 1, 2))
    if n % 6 == 2:
        odds = [3, 1] + odds[3:] + [5]
    elif n % 6 == 3:
        evens = evens[1:] + [2]
        odds = odds[2:] + [1, 3]
    return evens + odds
