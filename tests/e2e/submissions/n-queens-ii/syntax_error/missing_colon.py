class Solution:
    def totalNQueens(self, n: int) -> int
        return 0
