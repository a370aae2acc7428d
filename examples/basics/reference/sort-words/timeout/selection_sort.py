"""A correct selection sort: find the smallest word left, n times over."""


def sort_words(words):
    left = list(words)
    result = []
    while left:
        smallest = min(range(len(left)), key=lambda i: (left[i].lower(), left[i]))
        result.append(left.pop(smallest))
    return result
