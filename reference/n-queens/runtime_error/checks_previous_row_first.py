# Looks at the queen of the row above before checking there is one: fine from row 1 on,
# but on the first row queens[row - 1] is queens[-1] of an empty list: IndexError on every n.
class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        boards = []
        queens = []

        def safe(row, col):
            above = queens[row - 1]
            if abs(above - col) <= 1:
                return False
            return all(c != col and abs(c - col) != row - r for r, c in enumerate(queens))

        def place(row):
            if row == n:
                boards.append(["." * c + "Q" + "." * (n - 1 - c) for c in queens])
                return
            for col in range(n):
                if safe(row, col):
                    queens.append(col)
                    place(row + 1)
                    queens.pop()

        place(0)
        return boards
