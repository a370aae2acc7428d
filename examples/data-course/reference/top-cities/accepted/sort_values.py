import pandas as pd


def top_cities(rows, k):
    frame = pd.DataFrame(rows, columns=["city", "country", "population"])
    return frame.sort_values("population", ascending=False, kind="stable").head(k).reset_index(drop=True)
