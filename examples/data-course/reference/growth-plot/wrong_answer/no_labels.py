import matplotlib.pyplot as plt


def growth_plot(years, values):
    figure, axes = plt.subplots()
    axes.plot(years, values, label="growth")
    axes.set_title("Growth per year")
    return figure
