import numpy as np
import pandas as pd


def store_totals(sales):
    stores = np.asarray(sales["store"])
    amounts = np.asarray(sales["amount"], dtype=np.float64)
    present = np.unique(stores)
    frame = pd.DataFrame({"store": stores, "amount": amounts})
    totals = frame.groupby("store", sort=True)["amount"].sum()
    return totals.reindex(pd.Index(present, name="store"))
