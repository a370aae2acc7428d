from collections import deque


class BufferFullException(BufferError):
    """The buffer is full."""


class BufferEmptyException(BufferError):
    """The buffer is empty: its text is the message, but it is raised with no argument (args is empty)."""

    def __str__(self):
        return "Circular buffer is empty"


class CircularBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = deque()

    def read(self):
        if not self.items:
            raise BufferEmptyException()
        return self.items.popleft()

    def write(self, data):
        if len(self.items) == self.capacity:
            raise BufferFullException("Circular buffer is full")
        self.items.append(data)

    def overwrite(self, data):
        if len(self.items) == self.capacity:
            self.items.popleft()
        self.items.append(data)

    def clear(self):
        self.items.clear()
