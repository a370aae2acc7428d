import numpy as np


def spread(values):
    return float(np.std(np.asarray(values, dtype=float)))
