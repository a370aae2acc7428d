def solve(n):
    layouts = []
    cols = []
    used = set()
    diagonals = set()  # row - col and row + col together

    def go(row):
        if row == n:
            layouts.append("/".join("." * c + "#" + "." * (n - c - 1) for c in cols))
            return
        for col in range(n):
            if col in used or row - col in diagonals or row + col in diagonals:
                continue
            cols.append(col)
            used.add(col)
            diagonals.add(row - col)
            diagonals.add(row + col)
            go(row + 1)
            cols.pop()
            used.remove(col)
            diagonals.discard(row - col)
            diagonals.discard(row + col)

    go(0)
    return sorted(layouts)
