"""Mean and 95% confidence interval (Student's t) of repeated measurements."""
import math

# Two-sided 95% critical values of Student's t for 1..30 degrees of freedom.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    if df < 1:
        return float("nan")
    return _T95[df - 1] if df <= len(_T95) else 1.96


def mean_ci(xs):
    """(mean, half-width of the 95% CI); the CI is None for fewer than 2 values."""
    n = len(xs)
    if n == 0:
        return None, None
    m = sum(xs) / n
    if n < 2:
        return m, None
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t95(n - 1) * sd / math.sqrt(n)
