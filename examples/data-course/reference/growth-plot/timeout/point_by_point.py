import matplotlib.pyplot as plt


def growth_plot(years, values):
    # One line object per point, merged at the end: matplotlib's bookkeeping per artist makes it crawl.
    figure, axes = plt.subplots()
    for x, y in zip(years, values):
        axes.plot([x], [y])
    xs = [x for x in years]
    ys = [y for y in values]
    for line in list(axes.get_lines()):
        line.remove()
    axes.plot(xs, ys, label="growth")
    axes.set_title("Growth per year")
    axes.set_xlabel("year")
    axes.set_ylabel("value")
    return figure
