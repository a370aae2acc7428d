"""No recursion: the chosen columns live in a list that is extended and undone by hand,
with lists of flags for the columns and both diagonal families."""


def count_queens(n):
    col_used = [False] * n
    down_used = [False] * (2 * n - 1)  # index row - col + n - 1
    up_used = [False] * (2 * n - 1)  # index row + col
    chosen = []
    start = 0
    ways = 0
    while True:
        row = len(chosen)
        for col in range(start, n):
            if not (col_used[col] or down_used[row - col + n - 1] or up_used[row + col]):
                break
        else:
            col = n
        if col < n:
            chosen.append(col)
            col_used[col] = down_used[row - col + n - 1] = up_used[row + col] = True
            start = 0
            if len(chosen) < n:
                continue
            ways += 1
        if not chosen:
            return ways
        col = chosen.pop()
        row = len(chosen)
        col_used[col] = down_used[row - col + n - 1] = up_used[row + col] = False
        start = col + 1
