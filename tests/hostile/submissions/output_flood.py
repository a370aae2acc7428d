# Prints 1 GB, in 1 MiB lines (1024 of them).
def attack():
    line = "y" * (1 << 20)
    for _ in range(1024):
        print(line)
    return 0


def square(n):
    return n * n
