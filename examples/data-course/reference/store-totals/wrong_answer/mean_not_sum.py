import pandas as pd


def store_totals(sales):
    return pd.DataFrame(sales).groupby("store")["amount"].mean()
