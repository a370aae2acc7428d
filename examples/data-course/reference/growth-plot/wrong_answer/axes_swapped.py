import matplotlib.pyplot as plt


def growth_plot(years, values):
    figure, axes = plt.subplots()
    axes.plot(values, years, label="growth")  # x and y the wrong way round
    axes.set_title("Growth per year")
    axes.set_xlabel("year")
    axes.set_ylabel("value")
    return figure
