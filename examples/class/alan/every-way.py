n = int(input())
answers = []


def go(queens):
    row = len(queens)
    if row == n:
        answers.append(queens)
        return
    for col in range(n):
        if all(c != col and abs(c - col) != row - r for r, c in enumerate(queens)):
            go(queens + [col])


go([])
if answers:
    for queens in answers:
        print(" ".join(map(str, queens)))
else:
    print("none")
