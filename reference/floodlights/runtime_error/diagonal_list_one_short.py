"""Flag lists of 2n - 2 diagonals instead of 2n - 1: IndexError at n = 1 and whenever the last diagonal is tried."""


def solve(n):
    layouts = []
    cols = []
    col_used = [False] * n
    down_used = [False] * (2 * n - 2)
    up_used = [False] * (2 * n - 2)

    def light(row):
        if row == n:
            layouts.append("/".join("." * c + "#" + "." * (n - 1 - c) for c in cols))
            return
        for col in range(n):
            d, u = row - col + n - 1, row + col
            if col_used[col] or down_used[d] or up_used[u]:
                continue
            cols.append(col)
            col_used[col] = down_used[d] = up_used[u] = True
            light(row + 1)
            cols.pop()
            col_used[col] = down_used[d] = up_used[u] = False

    light(0)
    return sorted(layouts)
