"""Flag lists with the down-diagonal index shifted by n instead of n - 1: IndexError once row - col = n - 1."""


def first_solution(n):
    queens = []
    col_used = [False] * n
    down_used = [False] * (2 * n - 1)
    up_used = [False] * (2 * n - 1)

    def extend(row):
        if row == n:
            return True
        for col in range(n):
            d = row - col + n  # one too far: should be + n - 1
            if col_used[col] or down_used[d] or up_used[row + col]:
                continue
            queens.append(col)
            col_used[col] = down_used[d] = up_used[row + col] = True
            if extend(row + 1):
                return True
            queens.pop()
            col_used[col] = down_used[d] = up_used[row + col] = False
        return False

    return queens if extend(0) else None
