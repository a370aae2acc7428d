def zscores(values):
    import numpy as np

    # The mean and deviation computed again for every item, in Python: quadratic.
    out = []
    for x in values:
        mean = sum(values) / len(values)
        std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        out.append((x - mean) / std)
    return np.array(out)
