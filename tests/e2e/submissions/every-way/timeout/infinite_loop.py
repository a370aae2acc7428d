def arrangements(n):
    while True:
        pass


n = int(input())
for line in arrangements(n):
    print(line)
