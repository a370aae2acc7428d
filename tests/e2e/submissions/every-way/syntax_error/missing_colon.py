n = int(input())
if n in (2, 3)
    print("none")
