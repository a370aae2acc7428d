def count_queens(n):
    in_col = [False] * n
    in_down = [False] * (2 * n - 1)
    in_up = [False] * (2 * n - 1)
    found = 0

    def place(row):
        nonlocal found
        if row == n:
            found += 1
            return
        for col in range(n):
            down, up = row - col + n - 1, row + col
            if in_col[col] or in_down[down] or in_up[up]:
                continue
            in_col[col] = in_down[down] = in_up[up] = True
            place(row + 1)
            in_col[col] = in_down[down] = in_up[up] = False

    place(0)
    return found
