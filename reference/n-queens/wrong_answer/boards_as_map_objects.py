# Wrong format: each board is a lazy map object (of row strings), not a list.
class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        boards = []
        queens = []

        def place(row):
            if row == n:
                boards.append(map(lambda c: "." * c + "Q" + "." * (n - c - 1), list(queens)))
                return
            for col in range(n):
                if all(col != c and abs(col - c) != row - r for r, c in enumerate(queens)):
                    queens.append(col)
                    place(row + 1)
                    queens.pop()

        place(0)
        return boards
