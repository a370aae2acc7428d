import pandas as pd


def top_cities(rows, k):
    # Scans every remaining row in Python for each of the k picks, rebuilding the frame each time: quadratic.
    frame = pd.DataFrame(rows, columns=["city", "country", "population"])
    picked = []
    for _ in range(k):
        best = max(frame.itertuples(), key=lambda row: (row.population, -row.Index)).Index
        picked.append(frame.loc[best])
        frame = frame.drop(index=best)
    return pd.DataFrame(picked).reset_index(drop=True)
