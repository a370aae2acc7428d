def solve(n):
    layouts = []
    cols = []
    used_cols, used_d1, used_d2 = set(), set(), set()

    def backtrack(row):
        if row == n:
            rows = ["." * c + "#" + "." * (n - c - 1) for c in cols]
            layouts.append("/".join(rows))
            return
        for col in range(n):
            if col in used_cols or row - col in used_d1 or row + col in used_d2:
                continue
            cols.append(col)
            used_cols.add(col)
            used_d1.add(row - col)
            used_d2.add(row + col)
            backtrack(row + 1)
            cols.pop()
            used_cols.remove(col)
            used_d1.remove(row - col)
            used_d2.remove(row + col)

    backtrack(0)
    return sorted(layouts)
