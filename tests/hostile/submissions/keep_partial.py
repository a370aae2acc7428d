# Keeps partial results where the per-test clean-up might miss them, then looks for them in the next test.
import os

NAME = "partial-{marker}"
ELSEWHERE = ("/tmp", "/var/tmp", "/dev/shm")


def stash():
    top = os.getcwd()
    os.makedirs("keep/deeper")
    with open("keep/deeper/answers", "w") as answers:
        answers.write("14200")
    os.chmod("keep/deeper/answers", 0o000)
    os.chmod("keep/deeper", 0o000)
    os.chmod("keep", 0o500)
    os.mkdir("../" + NAME)  # the sandbox's own working folder, above this test's
    open("../%s/answers" % NAME, "w").close()
    os.chmod("../" + NAME, 0o500)
    os.mkdir("deep")
    os.chdir("deep")
    for _ in range(1100):  # deeper than Python's recursion limit
        os.mkdir("d")
        os.chdir("d")
    open("answers", "w").close()
    for folder in ELSEWHERE:
        try:
            os.mkdir("%s/%s" % (folder, NAME))
            open("%s/%s/answers" % (folder, NAME), "w").close()
            os.chmod("%s/%s" % (folder, NAME), 0o500)
        except OSError:
            pass
    os.chmod(top, 0o500)  # the test's own folder too
    return "stashed"


def look():
    here = os.path.basename(os.getcwd())
    found = [name for name in os.listdir("..") if name != here]
    found += ["%s/%s" % (f, NAME) for f in ELSEWHERE if os.path.exists("%s/%s" % (f, NAME))]
    return found


def square(n):
    return n * n
