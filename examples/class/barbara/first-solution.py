def first_solution(n):
    in_col = [False] * n
    in_down = [False] * (2 * n - 1)
    in_up = [False] * (2 * n - 1)
    queens = []

    def place(row):
        if row == n:
            return True
        for col in range(n):
            down, up = row - col + n - 1, row + col
            if in_col[col] or in_down[down] or in_up[up]:
                continue
            in_col[col] = in_down[down] = in_up[up] = True
            queens.append(col)
            if place(row + 1):
                return True
            queens.pop()
            in_col[col] = in_down[down] = in_up[up] = False
        return False

    return queens if place(0) else None
