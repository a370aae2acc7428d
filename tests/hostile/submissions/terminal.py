# Output meant to take over the teacher's terminal: escape sequences, rich markup, invalid UTF-8.
import sys

NASTY = "\x1b[2J\x1b[31mRED\x1b]0;pwned\x07 [bold red]markup[/bold red] [link=file:///etc]x[/link] \r\x08"


def shout():
    sys.stdout.write(NASTY + "\n")
    sys.stdout.flush()
    sys.stdout.buffer.write(b"\xff\xfe\xc3(\n")
    sys.stdout.flush()


def value():
    return NASTY


def crash():
    raise ValueError(NASTY)


def square(n):
    return n * n
