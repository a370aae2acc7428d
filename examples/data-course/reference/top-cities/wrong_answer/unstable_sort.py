import pandas as pd


def top_cities(rows, k):
    frame = pd.DataFrame(rows, columns=["city", "country", "population"])
    # quicksort of the reversed frame: equal populations come out in another order
    return frame.iloc[::-1].sort_values("population", ascending=False).head(k).reset_index(drop=True)
