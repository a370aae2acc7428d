"""No __len__: len(board) raises TypeError where the reference answers a number."""


class Board:
    def __init__(self, n):
        self.n = n
        self.placed = set()

    def is_free(self, row, col):
        if not (0 <= row < self.n and 0 <= col < self.n):
            return False
        return all(r != row and c != col and abs(r - row) != abs(c - col) for r, c in self.placed)

    def place(self, row, col):
        if not self.is_free(row, col):
            raise ValueError("not a free square")
        self.placed.add((row, col))

    def remove(self, row, col):
        if (row, col) not in self.placed:
            raise ValueError("no queen there")
        self.placed.remove((row, col))

    def queens(self):
        return sorted(self.placed)

    def size(self):
        return len(self.placed)
