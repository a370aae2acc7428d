# Wrong format: each row is a list of characters instead of a string.
class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        boards = []
        queens = []
        cols, downs, ups = set(), set(), set()

        def place(row):
            if row == n:
                board = [["."] * n for _ in range(n)]
                for r, c in enumerate(queens):
                    board[r][c] = "Q"
                boards.append(board)
                return
            for col in range(n):
                if col in cols or row - col in downs or row + col in ups:
                    continue
                queens.append(col)
                cols.add(col)
                downs.add(row - col)
                ups.add(row + col)
                place(row + 1)
                queens.pop()
                cols.remove(col)
                downs.remove(row - col)
                ups.remove(row + col)

        place(0)
        return boards
