"""Joins the integer columns with " ".join: TypeError as soon as an arrangement is found (every n but 2 and 3)."""

n = int(input())
cols = []
used_col, used_down, used_up = set(), set(), set()
found = 0


def place(row):
    global found
    if row == n:
        print(" ".join([c + 1 for c in cols]))
        found += 1
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
if not found:
    print("none")
