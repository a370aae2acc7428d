"""The custom checker of any-queens: any valid placement passes, so the answer is checked, not compared.

It runs in the grader (never in the sandbox) and gets the student's answer as plain data, types kept."""


def check(input, answer, expected):
    """(passed, feedback) for the answer to any_queens(n); `expected` (the reference's board) is unused:
    every valid board is as good as the reference's."""
    (n,) = input
    if n in (2, 3):
        if answer is None:
            return True, ""
        return False, f"a {n} × {n} board has no placement: return None, got {_short(answer)}"
    if answer is None:
        return False, f"a {n} × {n} board has placements, but the answer is None"
    if type(answer) is not list:
        return False, f"expected a list of {n} column numbers, got a {type(answer).__name__}"
    if len(answer) != n:
        return False, f"expected {n} column numbers (one per row), got {len(answer)}"
    for row, col in enumerate(answer):
        if type(col) is not int:
            return False, f"row {row}: the column must be an int, got {_short(col)} ({type(col).__name__})"
        if not 0 <= col < n:
            return False, f"row {row}: column {col} is off the board (columns are 0 to {n - 1})"
    seen: dict[tuple[str, int], int] = {}
    for row, col in enumerate(answer):
        for line, key in (("column", col), ("diagonal", row - col), ("anti-diagonal", row + col)):
            if (line, key) in seen:
                other = seen[line, key]
                return False, (f"the queens of rows {other} and {row} (columns {answer[other]} and {col}) "
                               f"share a {line}")
            seen[line, key] = row
    return True, ""


def check_two_calls(input, answer, expected):
    """[any_queens(5), any_queens(4)]: two calls in a row, each answering its own board (nothing the first
    call left behind, in a default argument or a global, may change the second's answer)."""
    if type(answer) is not list or len(answer) != 2:
        return False, f"expected the answers of two calls, got {_short(answer)}"
    for n, board in zip((5, 4), answer):
        passed, feedback = check((n,), board, expected)
        if not passed:
            return False, f"any_queens({n}), called after another call: {feedback}"
    return True, ""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
