"""Correct, and quick up to n = 20 or so, but the first placement of n = 200 is out of reach of a
search that tries the columns in order."""


def any_queens(n):
    queens, cols, downs, ups = [], set(), set(), set()

    def extend(row):
        if row == n:
            return True
        for col in range(n):
            if col in cols or row - col in downs or row + col in ups:
                continue
            queens.append(col)
            cols.add(col)
            downs.add(row - col)
            ups.add(row + col)
            if extend(row + 1):
                return True
            queens.pop()
            cols.remove(col)
            downs.remove(row - col)
            ups.remove(row + col)
        return False

    return queens if extend(0) else None
