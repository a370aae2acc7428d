def first_solution(n):
    queens = []
    cols, diag1, diag2 = set(), set(), set()

    def backtrack(row):
        if row == n:
            return True
        for col in range(n):
            if col in cols or row - col in diag1 or row + col in diag2:
                continue
            queens.append(col)
            cols.add(col)
            diag1.add(row - col)
            diag2.add(row + col)
            if backtrack(row + 1):
                return True
            queens.pop()
            cols.remove(col)
            diag1.remove(row - col)
            diag2.remove(row + col)
        return False

    if backtrack(0):
        return queens
    return None
