"""queens() hands out the board's own list: the caller's changes to it change the board."""


class Board:
    def __init__(self, n):
        self.n = n
        self.placed = []

    def is_free(self, row, col):
        if not (0 <= row < self.n and 0 <= col < self.n):
            return False
        return all(r != row and c != col and abs(r - row) != abs(c - col) for r, c in self.placed)

    def place(self, row, col):
        if not self.is_free(row, col):
            raise ValueError("not a free square")
        self.placed.append((row, col))
        self.placed.sort()

    def remove(self, row, col):
        if (row, col) not in self.placed:
            raise ValueError("no queen there")
        self.placed.remove((row, col))

    def queens(self):
        return self.placed

    def __len__(self):
        return len(self.placed)
