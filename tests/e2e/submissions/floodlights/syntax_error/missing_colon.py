def solve(n):
    layouts = []
    for row in range(n)
        pass
    return layouts
