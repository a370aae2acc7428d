class Solution:
    def totalNQueens(self, n: int) -> int:
        while True:
            pass
