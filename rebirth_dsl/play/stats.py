"""Confidence intervals and tests for the balance lab, written with the standard library only.

The lab must run wherever the engine runs, so nothing here needs scipy or numpy: Student's t comes from
the regularised incomplete beta function (a continued fraction), the normal from `statistics.NormalDist`,
binomial tails from exact integers. tests/surfaces/test_lab.py checks the numbers against scipy where it is
installed. Every test returns a two-sided p-value; every interval is (low, high) at `level` (95 %).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist

LEVEL = 0.95
_N = NormalDist()


# ----- distributions ---------------------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):  # the fraction converges fast on this side; use symmetry on the other
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t: float, df: float) -> float:
    """Two-sided tail P(|T| >= |t|) of Student's t with df degrees of freedom."""
    if math.isnan(t):
        return 1.0
    if math.isinf(t):
        return 0.0
    if df > 1e6:  # the t is the normal to many digits, and the fraction would be slow
        return 2.0 * _N.cdf(-abs(t))
    return betainc(df / 2.0, 0.5, df / (df + t * t))


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The p-quantile (p > 0.5) of Student's t, by bisection on the tail (cached: a run asks few dfs)."""
    if df > 1e6:
        return _N.inv_cdf(p)
    tail = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > tail:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if t_sf2(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def z_sf2(z: float) -> float:
    """Two-sided normal tail P(|Z| >= |z|)."""
    return 2.0 * _N.cdf(-abs(z))


def chi2_1_sf(x: float) -> float:
    """Upper tail of the chi-square with one degree of freedom."""
    return math.erfc(math.sqrt(max(x, 0.0) / 2.0))


def chi2_sf(x: float, df: int) -> float:
    """Upper tail of the chi-square with `df` (a positive integer) degrees of freedom: the regularised upper
    gamma Q(df/2, x/2) in closed form, a finite series from erfc (odd df) or from 1 (even df)."""
    if df < 1:
        raise ValueError(f"chi-square with {df} degrees of freedom")
    h = max(x, 0.0) / 2.0
    if df % 2:  # Q(m + 1/2, h) = erfc(sqrt h) + e^-h (h^(1/2) / G(3/2) + h^(3/2) / G(5/2) + ...), m terms
        total = math.erfc(math.sqrt(h))
        term = math.exp(-h + 0.5 * math.log(h) - math.lgamma(1.5)) if h > 0 else 0.0
        for i in range(df // 2):
            total += term
            term *= h / (i + 1.5)
        return min(1.0, total)
    total = term = math.exp(-h)
    for i in range(1, df // 2):
        term *= h / i
        total += term
    return min(1.0, total)


def seat_fairness(wins: Sequence[float], games: int) -> dict[str, float | int]:
    """Pearson's chi-square of the seats' wins (shared wins split) against an equal share, games / seats
    each, with its p-value (seats - 1 degrees of freedom): a small p says the seats are not equally placed."""
    n = len(wins)
    expected = games / n
    chi2 = sum((w - expected) ** 2 / expected for w in wins) if expected else 0.0
    return {"chi2": chi2, "df": n - 1, "p": chi2_sf(chi2, n - 1) if n > 1 else 1.0, "expected": expected}


# ----- descriptions ----------------------------------------------------------------------------------
def mean(xs: Sequence[float]) -> float:
    """The mean (0 for no data)."""
    return sum(xs) / len(xs) if xs else 0.0


def sd(xs: Sequence[float]) -> float:
    """The sample standard deviation (n - 1; 0 below two values)."""
    n = len(xs)
    if n < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(max(0.0, sum((x - m) ** 2 for x in xs) / (n - 1)))


def mean_ci(xs: Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """Mean with its t interval: (mean, low, high); a constant sample has a zero-width interval."""
    n = len(xs)
    m = mean(xs)
    if n < 2:
        return m, m, m
    half = t_quantile(0.5 + level / 2.0, n - 1) * sd(xs) / math.sqrt(n)
    return m, m - half, m + half


def sd_ci(xs: Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """Standard deviation with an asymptotic interval that assumes no normality: Var(s^2) ~ (m4 - s^4) / n,
    carried to s by the delta method."""
    n = len(xs)
    s = sd(xs)
    if n < 4 or s == 0.0:
        return s, s, s
    m = mean(xs)
    m4 = sum((x - m) ** 4 for x in xs) / n
    se = math.sqrt(max(0.0, m4 - s ** 4) / n) / (2.0 * s)
    z = _N.inv_cdf(0.5 + level / 2.0)
    return s, max(0.0, s - z * se), s + z * se


def wilson(k: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of a proportion k / n (k may be fractional: shared wins count in parts)."""
    if n <= 0:
        return 0.0, 1.0
    z = _N.inv_cdf(0.5 + level / 2.0)
    p = k / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / den
    # at 0 or n the bound is exactly 0 or 1; the formula leaves a rounding error there
    return (0.0 if p <= 0 else max(0.0, centre - half)), (1.0 if p >= 1 else min(1.0, centre + half))


# ----- tests -----------------------------------------------------------------------------------------
def paired_t(d: Sequence[float], level: float = LEVEL) -> tuple[float, tuple[float, float]]:
    """Paired t-test on per-game differences: p and the interval of the mean difference. All differences
    equal: p is 1 when they are 0 and 0 otherwise (a difference without noise)."""
    n = len(d)
    m, lo, hi = mean_ci(d, level)
    if n < 2:
        return 1.0, (lo, hi)
    s = sd(d)
    if s == 0.0:
        return (1.0 if m == 0.0 else 0.0), (m, m)
    return t_sf2(m / (s / math.sqrt(n)), n - 1), (lo, hi)


def wilcoxon(d: Sequence[float]) -> float:
    """Wilcoxon signed-rank test on paired differences: zeros dropped, average ranks for ties, normal
    approximation with tie and continuity corrections."""
    nz = sorted((abs(x), x > 0) for x in d if x != 0)
    n = len(nz)
    if n == 0:
        return 1.0
    w_plus = 0.0
    ties = 0.0
    i = 0
    while i < n:
        j = i
        while j + 1 < n and nz[j + 1][0] == nz[i][0]:
            j += 1
        rank = (i + j) / 2.0 + 1.0
        t = j - i + 1
        ties += t ** 3 - t
        w_plus += rank * sum(1 for k in range(i, j + 1) if nz[k][1])
        i = j + 1
    mu = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0 - ties / 48.0
    if var <= 0:
        return 1.0
    z = (abs(w_plus - mu) - 0.5) / math.sqrt(var)
    return z_sf2(max(0.0, z))


def mcnemar(b: int, c: int) -> float:
    """McNemar's test on the discordant pairs (b: only the first won, c: only the second): the exact
    binomial test up to 1,000 discordant pairs, the chi-square with continuity correction above."""
    n = b + c
    if n == 0:
        return 1.0
    if n <= 1000:
        k = min(b, c)
        tail = sum(math.comb(n, i) for i in range(k + 1))
        return min(1.0, 2.0 * tail / 2 ** n)
    return chi2_1_sf((abs(b - c) - 1) ** 2 / n)


def two_proportions(k1: float, n1: int, k2: float, n2: int, level: float = LEVEL
                    ) -> tuple[float, tuple[float, float]]:
    """Two-proportion z-test (pooled) for p2 - p1, with Newcombe's hybrid score interval of the difference."""
    if n1 <= 0 or n2 <= 0:
        return 1.0, (-1.0, 1.0)
    p1, p2 = k1 / n1, k2 / n2
    pool = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    p = (1.0 if p1 == p2 else 0.0) if se == 0 else z_sf2((p2 - p1) / se)
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    d = p2 - p1
    return p, (d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2))


def welch(x: Sequence[float], y: Sequence[float], level: float = LEVEL) -> tuple[float, tuple[float, float]]:
    """Welch's two-sample t-test for mean(y) - mean(x), with its interval (Welch-Satterthwaite df)."""
    nx, ny = len(x), len(y)
    d = mean(y) - mean(x)
    if nx < 2 or ny < 2:
        return 1.0, (d, d)
    vx, vy = sd(x) ** 2 / nx, sd(y) ** 2 / ny
    se2 = vx + vy
    if se2 == 0:
        return (1.0 if d == 0 else 0.0), (d, d)
    df = se2 ** 2 / ((vx ** 2 / (nx - 1) if vx else 0.0) + (vy ** 2 / (ny - 1) if vy else 0.0))
    half = t_quantile(0.5 + level / 2.0, df) * math.sqrt(se2)
    return t_sf2(d / math.sqrt(se2), df), (d - half, d + half)


def pitman_morgan(x: Sequence[float], y: Sequence[float]) -> float:
    """Pitman-Morgan test of equal variances of paired samples: Var x = Var y exactly when x + y and x - y
    are uncorrelated, tested by the t of that correlation (n - 2 df)."""
    n = len(x)
    if n < 3:
        return 1.0
    s = [a + b for a, b in zip(x, y, strict=True)]
    d = [a - b for a, b in zip(x, y, strict=True)]
    ss, sdd = sd(s), sd(d)
    if ss == 0.0 or sdd == 0.0:
        return 1.0  # one of them constant: their covariance, Var x - Var y, is 0
    ms, md = mean(s), mean(d)
    r = sum((a - ms) * (b - md) for a, b in zip(s, d, strict=True)) / ((n - 1) * ss * sdd)
    r = max(-1.0, min(1.0, r))
    if abs(r) == 1.0:
        return 0.0
    return t_sf2(r * math.sqrt((n - 2) / (1 - r * r)), n - 2)


def holm(ps: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the order given (reject where adjusted p < alpha)."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))  # step-down: never below an earlier one
        out[i] = running
    return out
