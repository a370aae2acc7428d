"""Columns tried in increasing order, so the arrangements come out in lexicographic order."""


def arrangements(n):
    found = []
    cols = []
    used_col, used_down, used_up = set(), set(), set()

    def place(row):
        if row == n:
            found.append(list(cols))
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
    return found


n = int(input())
result = arrangements(n)
if not result:
    print("none")
for cols in result:
    print(" ".join(str(c + 1) for c in cols))
