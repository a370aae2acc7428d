# A 10 GB sparse file: one byte written at offset 10 GiB.
def attack():
    with open("sparse.bin", "wb") as file:
        file.seek(10 << 30)
        file.write(b"x")
    return "written"


def square(n):
    return n * n
