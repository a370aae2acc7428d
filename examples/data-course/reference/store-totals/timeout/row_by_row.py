import pandas as pd


def store_totals(sales):
    # One pandas assignment per sale: each costs microseconds of indexing machinery.
    stores = sorted(set(sales["store"]))
    totals = pd.Series(0.0, index=pd.Index(stores, name="store"), name="amount")
    for store, amount in zip(sales["store"], sales["amount"]):
        totals.loc[store] += amount
    return totals
