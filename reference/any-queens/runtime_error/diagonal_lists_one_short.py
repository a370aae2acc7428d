"""Min-conflicts with diagonal counters of 2n - 2 slots: the last up-diagonal is out of range."""

import random


def any_queens(n):
    if n in (2, 3):
        return None
    rng = random.Random(n)
    cols, downs, ups = [0] * n, [0] * (2 * n - 2), [0] * (2 * n - 2)
    board = []
    for row in range(n):
        col = min(range(n), key=lambda c: (cols[c] + downs[row - c + n - 1] + ups[row + c], rng.random()))
        board.append(col)
        cols[col] += 1
        downs[row - col + n - 1] += 1
        ups[row + col] += 1
    return board
