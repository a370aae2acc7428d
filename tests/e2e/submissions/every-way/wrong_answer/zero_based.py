n = int(input())
found = []


def place(cols):
    row = len(cols)
    if row == n:
        found.append(cols)
        return
    for col in range(n):
        if all(c != col and abs(c - col) != row - r for r, c in enumerate(cols)):
            place(cols + [col])


place([])
for cols in found:
    print(*cols)
if not found:
    print("none")
