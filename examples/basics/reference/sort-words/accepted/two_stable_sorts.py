"""Two stable sorts: by the word, then by its lower-case form (a stable sort keeps the first order among
words equal ignoring case)."""


def sort_words(words):
    result = sorted(words)
    result.sort(key=str.lower)
    return result
