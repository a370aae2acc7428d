# Grabs memory in 64 MiB steps up to 4 GiB (bounded even if no limit held).
def attack():
    hoard = []
    for _ in range(64):
        hoard.append(b"x" * (64 << 20))
    return len(hoard)


def square(n):
    return n * n
