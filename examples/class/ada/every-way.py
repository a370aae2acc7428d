n = int(input())
cols = []
used, d1, d2 = set(), set(), set()
printed = 0


def backtrack(row):
    global printed
    if row == n:
        print(" ".join(str(c + 1) for c in cols))
        printed += 1
        return
    for col in range(n):
        if col in used or row - col in d1 or row + col in d2:
            continue
        cols.append(col)
        used.add(col)
        d1.add(row - col)
        d2.add(row + col)
        backtrack(row + 1)
        cols.pop()
        used.remove(col)
        d1.remove(row - col)
        d2.remove(row + col)


backtrack(0)
if printed == 0:
    print("none")
