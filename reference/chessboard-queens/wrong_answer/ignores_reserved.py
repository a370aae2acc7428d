"""Forgets the reserved squares: prints 92 whatever the board."""

board = [input() for _ in range(8)]
cols, downs, ups = set(), set(), set()


def place(row):
    if row == 8:
        return 1
    ways = 0
    for col in range(8):
        if col in cols or row - col in downs or row + col in ups:
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
