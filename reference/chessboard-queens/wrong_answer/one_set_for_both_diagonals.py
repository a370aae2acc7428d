"""Keeps row - col and row + col in one set: a sum can equal an unrelated difference, so good placements are lost."""

board = [input() for _ in range(8)]
cols, diagonals = set(), set()


def place(row):
    if row == 8:
        return 1
    ways = 0
    for col in range(8):
        if board[row][col] == "*" or col in cols or row - col in diagonals or row + col in diagonals:
            continue
        cols.add(col)
        diagonals.add(row - col)
        diagonals.add(row + col)
        ways += place(row + 1)
        cols.remove(col)
        diagonals.discard(row - col)
        diagonals.discard(row + col)
    return ways


print(place(0))
