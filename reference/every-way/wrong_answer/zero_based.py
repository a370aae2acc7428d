"""Prints the columns numbered from 0 instead of 1."""

n = int(input())
cols = []
used_col, used_down, used_up = set(), set(), set()
count = 0


def place(row):
    global count
    if row == n:
        print(" ".join(str(c) for c in cols))
        count += 1
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
if count == 0:
    print("none")
