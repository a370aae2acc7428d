"""A repair search (min-conflicts): a greedy board, then move a queen in conflict to its least attacked
column until no queen is attacked. Seeded, so every run gives the same board."""

import random


def any_queens(n):
    if n in (2, 3):
        return None
    rng = random.Random(n)
    while True:
        board = _repair(n, rng, max_moves=50 * n + 100)
        if board is not None:
            return board


def _repair(n, rng, max_moves):
    cols = [0] * n
    downs = [0] * (2 * n - 1)  # row - col + n - 1
    ups = [0] * (2 * n - 1)  # row + col
    board = []
    for row in range(n):  # greedy start: each row's queen on a least attacked column
        best = min(range(n), key=lambda c: (cols[c] + downs[row - c + n - 1] + ups[row + c], rng.random()))
        board.append(best)
        cols[best] += 1
        downs[row - best + n - 1] += 1
        ups[row + best] += 1

    def attacks(row, col):
        return cols[col] + downs[row - col + n - 1] + ups[row + col]

    for _ in range(max_moves):
        conflicted = [r for r in range(n) if attacks(r, board[r]) > 3]  # itself counts 3 times
        if not conflicted:
            return board
        row = rng.choice(conflicted)
        old = board[row]
        cols[old] -= 1
        downs[row - old + n - 1] -= 1
        ups[row + old] -= 1
        scores = [attacks(row, c) for c in range(n)]
        low = min(scores)
        new = rng.choice([c for c in range(n) if scores[c] == low])
        board[row] = new
        cols[new] += 1
        downs[row - new + n - 1] += 1
        ups[row + new] += 1
    return None
