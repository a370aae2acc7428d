"""Tries the columns from right to left: every arrangement is there, but in reverse order."""

n = int(input())
cols = []
used_col, used_down, used_up = set(), set(), set()
lines = []


def place(row):
    if row == n:
        lines.append(" ".join(str(c + 1) for c in cols))
        return
    for col in reversed(range(n)):
        if col in used_col or row - col in used_down or row + col in used_up:
            continue
        cols.append(col)
        used_col.add(col)
        used_down.add(row - col)
        used_up.add(row + col)
        place(row + 1)
        cols.pop()
        used_col.remove(col)
        used_down.remove(row - col)
        used_up.remove(row + col)


place(0)
print("\n".join(lines) if lines else "none")
