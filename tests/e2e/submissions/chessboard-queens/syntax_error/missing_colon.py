board = [input() for _ in range(8)]
for line in board
    pass
print(0)
