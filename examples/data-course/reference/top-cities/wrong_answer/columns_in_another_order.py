import pandas as pd


def top_cities(rows, k):
    frame = pd.DataFrame({"population": [r[2] for r in rows], "city": [r[0] for r in rows],
                          "country": [r[1] for r in rows]})
    return frame.sort_values("population", ascending=False, kind="stable").head(k).reset_index(drop=True)
