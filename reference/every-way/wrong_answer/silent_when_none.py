"""Forgets the special case: prints nothing at all when there is no arrangement."""

n = int(input())
cols = []
used_col, used_down, used_up = set(), set(), set()


def place(row):
    if row == n:
        print(*(c + 1 for c in cols))
        return
    for col in range(n):
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
