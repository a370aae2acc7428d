"""Two methods: a backtracking search where it is quick, and a construction that places the queens in
steps of two (a knight's move apart) beyond. This construction is another way to write the explicit rule."""


def any_queens(n):
    if n < 12:
        return _search(n)
    return _knight_steps(n)


def _search(n):
    queens, cols, downs, ups = [], set(), set(), set()

    def extend(row):
        if row == n:
            return True
        for col in range(n):
            if col in cols or row - col in downs or row + col in ups:
                continue
            queens.append(col)
            cols.add(col)
            downs.add(row - col)
            ups.add(row + col)
            if extend(row + 1):
                return True
            queens.pop()
            cols.discard(col)
            downs.discard(row - col)
            ups.discard(row + col)
        return False

    return queens if extend(0) else None


def _knight_steps(n):
    if n % 6 not in (2, 3):
        return [2 * i + 1 for i in range(n // 2)] + [2 * i for i in range((n + 1) // 2)]
    # Hoffman's split for the other boards: a half of the board from a shifted start, the other half mirrored.
    half = n // 2
    if n % 2 == 0:
        first = [(2 * i + half - 1) % n for i in range(half)]
        return first + [n - 1 - c for c in reversed(first)]
    board = _knight_steps(n - 1)  # an odd board: the even board one smaller, plus a queen in the corner
    return board + [n - 1] if _fits(board + [n - 1]) else None


def _fits(board):
    return len(set(board)) == len(board) and len({r - c for r, c in enumerate(board)}) == len(board) \
        and len({r + c for r, c in enumerate(board)}) == len(board)
