"""Expects the board size on the first line, as in many other problems: int('........') raises ValueError."""

n = int(input())
board = [input() for _ in range(n)]
cols, downs, ups = set(), set(), set()


def place(row):
    if row == n:
        return 1
    ways = 0
    for col in range(n):
        if board[row][col] == "*" or col in cols or row - col in downs or row + col in ups:
            continue
        cols.add(col)
        downs.add(row - col)
        ups.add(row + col)
        ways += place(row + 1)
        cols.remove(col)
        downs.remove(row - col)
        ups.remove(row + col)
    return ways


print(place(0))
