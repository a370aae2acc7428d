"""Collects every solution, then returns the first: right, but n = 16 has millions of solutions."""


def first_solution(n):
    found = []
    queens = []
    cols, downs, ups = set(), set(), set()

    def extend(row):
        if row == n:
            found.append(list(queens))
            return
        for col in range(n):
            if col in cols or row - col in downs or row + col in ups:
                continue
            queens.append(col)
            cols.add(col)
            downs.add(row - col)
            ups.add(row + col)
            extend(row + 1)
            queens.pop()
            cols.remove(col)
            downs.remove(row - col)
            ups.remove(row + col)

    extend(0)
    return found[0] if found else None
