"""A typo in __init__ (`sets()` for `set()`): building the board raises NameError; in a steps test an
exception where none is expected is a wrong answer at that step."""


class Board:
    def __init__(self, n):
        self.n = n
        self.placed = sets()  # noqa: F821 - the typo

    def is_free(self, row, col):
        return 0 <= row < self.n and 0 <= col < self.n and all(
            r != row and c != col and abs(r - row) != abs(c - col) for r, c in self.placed)

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

    def __len__(self):
        return len(self.placed)
