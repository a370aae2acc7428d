"""A grid of booleans, and a walk along the four lines through a square to see whether it is attacked."""

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))


class Board:
    def __init__(self, n):
        self.size = n
        self.grid = [[False] * n for _ in range(n)]
        self.count = 0

    def inside(self, row, col):
        return 0 <= row < self.size and 0 <= col < self.size

    def attacked(self, row, col):
        for dr, dc in DIRECTIONS:
            r, c = row + dr, col + dc
            while self.inside(r, c):
                if self.grid[r][c]:
                    return True
                r, c = r + dr, c + dc
        return False

    def is_free(self, row, col):
        return self.inside(row, col) and not self.grid[row][col] and not self.attacked(row, col)

    def place(self, row, col):
        if not self.is_free(row, col):
            raise ValueError("cannot place a queen there")
        self.grid[row][col] = True
        self.count += 1

    def remove(self, row, col):
        if not self.inside(row, col) or not self.grid[row][col]:
            raise ValueError("there is no queen there")
        self.grid[row][col] = False
        self.count -= 1

    def queens(self):
        return [(r, c) for r in range(self.size) for c in range(self.size) if self.grid[r][c]]

    def __len__(self):
        return self.count
