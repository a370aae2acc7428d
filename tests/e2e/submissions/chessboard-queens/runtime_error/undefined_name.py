board = [input() for _ in range(8)]
print(count_placements(board))
