# A reference is rendered for each variant, as the statement is: {{ row }} and {{ col }} are its square.
BLOCKED = ({{ row }}, {{ col }})


def count_queens(n):
    cols, down, up = set(), set(), set()

    def fill(row):
        if row == n:
            return 1
        ways = 0
        for col in range(n):
            if (row, col) == BLOCKED or col in cols or row - col in down or row + col in up:
                continue
            cols.add(col)
            down.add(row - col)
            up.add(row + col)
            ways += fill(row + 1)
            cols.remove(col)
            down.remove(row - col)
            up.remove(row + col)
        return ways

    return fill(0)
