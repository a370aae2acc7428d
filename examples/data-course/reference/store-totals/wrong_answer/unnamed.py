import pandas as pd


def store_totals(sales):
    totals = pd.DataFrame(sales).groupby("store")["amount"].sum()
    return totals.rename(None).rename_axis(None)  # the names of the series and its index are lost
