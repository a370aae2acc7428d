"""The standard library's fmean (an exact sum, then one division); it raises StatisticsError for an
empty list, and StatisticsError is a subclass of ValueError."""

from statistics import fmean as mean  # noqa: F401
