import pandas as pd


def top_cities(rows, k):
    frame = pd.DataFrame(rows, columns=["city", "country", "population"])
    return frame.nlargest(k, "population", keep="first").reset_index(drop=True)
