import numpy as np


def zscores(values):
    x = np.asarray(values, dtype=np.float64)
    return list((x - x.mean()) / x.std())  # a list of numpy floats, not an array
