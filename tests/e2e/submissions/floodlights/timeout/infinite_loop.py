def solve(n):
    while True:
        pass
