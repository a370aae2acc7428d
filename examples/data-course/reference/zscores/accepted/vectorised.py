import numpy as np


def zscores(values):
    x = np.asarray(values, dtype=np.float64)
    return (x - x.mean()) / x.std()
