class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        return backtrack(0, n)
