"""The explicit rule without its repairs: evens then odds is right for most n, but two queens share a
diagonal when n % 6 is 2 or 3 (n = 8, 9, 14, 200...)."""


def any_queens(n):
    if n in (2, 3):
        return None
    return list(range(1, n, 2)) + list(range(0, n, 2))
