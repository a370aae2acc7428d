def first_solution(n):
    solutions = []

    def go(queens):
        row = len(queens)
        if row == n:
            solutions.append(queens)
            return
        for col in range(n):
            if all(c != col and abs(c - col) != row - r for r, c in enumerate(queens)):
                go(queens + [col])

    go([])
    if solutions:
        return solutions[0]
    return None
