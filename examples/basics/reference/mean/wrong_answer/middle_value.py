"""The median, not the mean: right for [1, 2, 3, 4] by luck, wrong elsewhere."""


def mean(xs):
    if not xs:
        raise ValueError("empty")
    ordered = sorted(xs)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
