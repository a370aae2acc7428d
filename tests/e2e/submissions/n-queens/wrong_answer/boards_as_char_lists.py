class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        boards, queens = [], []

        def place(row):
            if row == n:
                board = [["."] * n for _ in range(n)]
                for r, c in enumerate(queens):
                    board[r][c] = "Q"
                boards.append(board)
                return
            for col in range(n):
                if all(c != col and abs(c - col) != row - r for r, c in enumerate(queens)):
                    queens.append(col)
                    place(row + 1)
                    queens.pop()

        place(0)
        return boards
