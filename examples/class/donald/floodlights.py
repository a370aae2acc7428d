def solve(n):
    layouts = []
    cols = []
    taken, downs, ups = set(), set(), set()

    def go(row):
        if row == n:
            layouts.append("/".join("." * c + "#" + "." * (n - c - 1) for c in cols))
            return
        for col in range(n)
            if col in taken or row - col in downs or row + col in ups:
                continue
            cols.append(col)
            taken.add(col); downs.add(row - col); ups.add(row + col)
            go(row + 1)
            cols.pop()
            taken.remove(col); downs.remove(row - col); ups.remove(row + col)

    go(0)
    return sorted(layouts)
