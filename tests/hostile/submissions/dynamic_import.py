# Imports a forbidden module by a name the syntax tree cannot see.
def square(n):
    tools = __import__("iter" + "tools")
    return n * n if tools else 0
