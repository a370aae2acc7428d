"""Pitfall: row - col and row + col go into the same set, so a sum can clash with an unrelated difference."""


def solve(n):
    layouts = []
    cols = []
    used_col, used_diag = set(), set()

    def light(row):
        if row == n:
            layouts.append("/".join("." * c + "#" + "." * (n - 1 - c) for c in cols))
            return
        for col in range(n):
            if col in used_col or row - col in used_diag or row + col in used_diag:
                continue
            cols.append(col)
            used_col.add(col)
            used_diag.add(row - col)
            used_diag.add(row + col)
            light(row + 1)
            cols.pop()
            used_col.remove(col)
            used_diag.discard(row - col)
            used_diag.discard(row + col)

    light(0)
    return sorted(layouts)
