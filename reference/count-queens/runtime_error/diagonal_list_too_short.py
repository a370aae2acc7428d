"""Lists of flags, but the diagonal lists get n slots where 2n - 1 are needed: IndexError from n = 2 on."""


def count_queens(n):
    col_used = [False] * n
    down_used = [False] * n  # should be 2 * n - 1
    up_used = [False] * n

    def fill(row):
        if row == n:
            return 1
        ways = 0
        for col in range(n):
            d, u = row - col + n - 1, row + col
            if col_used[col] or down_used[d] or up_used[u]:
                continue
            col_used[col] = down_used[d] = up_used[u] = True
            ways += fill(row + 1)
            col_used[col] = down_used[d] = up_used[u] = False
        return ways

    return fill(0)
