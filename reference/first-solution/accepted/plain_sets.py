"""Depth-first, columns left to right; the search reports success upwards and stops at once."""


def first_solution(n):
    queens = []
    cols, downs, ups = set(), set(), set()

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
                return True  # leave the queens in place: they are the answer
            queens.pop()
            cols.remove(col)
            downs.remove(row - col)
            ups.remove(row + col)
        return False

    return queens if extend(0) else None
