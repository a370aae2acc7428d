"""Off by one in the drawing: n - c bare posts after the light instead of n - c - 1."""


def solve(n):
    layouts = []
    cols = []
    used_col, used_down, used_up = set(), set(), set()

    def light(row):
        if row == n:
            layouts.append("/".join("." * c + "#" + "." * (n - c) for c in cols))
            return
        for col in range(n):
            if col in used_col or row - col in used_down or row + col in used_up:
                continue
            cols.append(col)
            used_col.add(col)
            used_down.add(row - col)
            used_up.add(row + col)
            light(row + 1)
            cols.pop()
            used_col.remove(col)
            used_down.remove(row - col)
            used_up.remove(row + col)

    light(0)
    return sorted(layouts)
