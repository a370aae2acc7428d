"""The taken lines live on the class, not on each board: every Board shares one set of queens."""


class Board:
    queens_placed = []  # one list for every board

    def __init__(self, n):
        self.n = n

    def is_free(self, row, col):
        if not (0 <= row < self.n and 0 <= col < self.n):
            return False
        return all(r != row and c != col and abs(r - row) != abs(c - col) for r, c in self.queens_placed)

    def place(self, row, col):
        if not self.is_free(row, col):
            raise ValueError("not a free square")
        self.queens_placed.append((row, col))

    def remove(self, row, col):
        if (row, col) not in self.queens_placed:
            raise ValueError("no queen there")
        self.queens_placed.remove((row, col))

    def queens(self):
        return sorted(self.queens_placed)

    def __len__(self):
        return len(self.queens_placed)
