"""Off by one: counts a board once row 7 is reached, so the last row's queen is never placed."""

board = [input() for _ in range(8)]
cols, downs, ups = set(), set(), set()


def place(row):
    if row == 7:
        return 1
    ways = 0
    for col in range(8):
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
