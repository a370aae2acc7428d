class Solution:
    def totalNQueens(self, n: int) -> int:
        return n // 0
