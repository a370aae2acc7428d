from itertools import permutations

n = int(input())
found = False
for cols in permutations(range(1, n + 1)):
    if len({r - c for r, c in enumerate(cols)}) == n and len({r + c for r, c in enumerate(cols)}) == n:
        print(*cols)
        found = True
if not found:
    print("none")
