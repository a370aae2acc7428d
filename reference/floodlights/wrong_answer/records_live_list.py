"""Pitfall: records the shared cols list itself; by the end it is empty, so every layout draws as ''."""


def solve(n):
    found = []
    cols = []
    used_col, used_down, used_up = set(), set(), set()

    def light(row):
        if row == n:
            found.append(cols)  # the same list object every time
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
    return sorted("/".join("." * c + "#" + "." * (n - 1 - c) for c in layout) for layout in found)
