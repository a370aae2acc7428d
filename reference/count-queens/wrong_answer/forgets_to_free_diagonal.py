"""The un-choose step forgets one diagonal: it stays blocked, so the count comes out too small."""


def count_queens(n):
    cols, downs, ups = set(), set(), set()

    def fill(row):
        if row == n:
            return 1
        ways = 0
        for col in range(n):
            if col in cols or row - col in downs or row + col in ups:
                continue
            cols.add(col)
            downs.add(row - col)
            ups.add(row + col)
            ways += fill(row + 1)
            cols.remove(col)
            downs.remove(row - col)
        return ways

    return fill(0)
