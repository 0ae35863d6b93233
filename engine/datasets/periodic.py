"""Periodic signals on tori: a spiking neuron, synthetic traffic, El Nino sea temperatures."""

from __future__ import annotations

import numpy as np

from ..coords import angle_to_circle
from ..utils import as_generator, require
from ._base import (
    Dataset,
    ParamInfo,
    register,
)

__all__ = ["fourier_features", "load_el_nino", "load_neuron", "load_traffic", "simulate_izhikevich"]


# ---------------------------------------------------------------- neuron
def simulate_izhikevich(
    n_steps: int = 20_000,
    dt: float = 0.5,
    a: float = 0.02,
    b: float = 0.2,
    c: float = -65.0,
    d: float = 8.0,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Membrane potential of a regular-spiking Izhikevich neuron under a noisy slow drive.

    ``v' = 0.04 v^2 + 5 v + 140 - u + I``, ``u' = a (b v - u)``, and when
    ``v >= 30`` mV the spike resets ``v <- c``, ``u <- u + d``. The input current
    is ``I(t) = 10 + 4 sin(2 pi t / 1000 ms) + 2 N(0, 1)`` (a 1 Hz rhythm plus
    noise), integrated with forward Euler.

    Parameters
    ----------
    n_steps : int
        Number of time steps.
    dt : float
        Step in milliseconds.
    a, b, c, d : float
        Izhikevich parameters (the defaults are the regular-spiking cell).
    random_state : int, Generator or None
        Seed of the input noise.

    Returns
    -------
    t : ndarray, shape (n_steps,)
        Times in milliseconds.
    v : ndarray, shape (n_steps,)
        Membrane potential in millivolts (spike peaks clipped at 30 mV).
    """
    rng = as_generator(random_state)
    t = np.arange(n_steps) * dt
    current = 10.0 + 4.0 * np.sin(2.0 * np.pi * t / 1000.0) + 2.0 * rng.standard_normal(n_steps)
    v_trace = np.empty(n_steps)
    v, u = c, b * c
    for step in range(n_steps):  # a recurrence: every step needs the previous one
        if v >= 30.0:
            v_trace[step] = 30.0
            v, u = c, u + d
        else:
            v_trace[step] = v
        dv = 0.04 * v * v + 5.0 * v + 140.0 - u + current[step]
        du = a * (b * v - u)
        v, u = v + dt * dv, u + dt * du
        # Clip the overshoot of the Euler step across the spike threshold so the
        # quadratic term cannot blow up before the reset on the next step.
        v = min(v, 30.0)
    return t, v_trace


def fourier_features(t: np.ndarray, signal: np.ndarray, n_frequencies: int) -> tuple[np.ndarray, np.ndarray]:
    """The paper's featurisation of time into a torus (S1)^k.

    Takes the ``n_frequencies`` strongest non-zero frequencies ``f_k`` of the
    signal's real FFT and maps each time ``t`` to the angles ``2 pi t f_k``.

    Parameters
    ----------
    t : ndarray, shape (n,)
        Equally spaced times.
    signal : ndarray, shape (n,)
    n_frequencies : int

    Returns
    -------
    X : ndarray, shape (n, 2 n_frequencies)
        ``(cos, sin)`` pairs, one unit circle per frequency.
    frequencies : ndarray, shape (n_frequencies,)
        The chosen frequencies in cycles per unit of ``t``, strongest first.
    """
    spectrum = np.abs(np.fft.rfft(signal - signal.mean()))
    freqs = np.fft.rfftfreq(len(signal), d=float(t[1] - t[0]))
    order = np.argsort(spectrum[1:])[::-1] + 1  # skip the constant term
    chosen = freqs[order[:n_frequencies]]
    return np.hstack([angle_to_circle(2.0 * np.pi * t * f) for f in chosen]), chosen


@register(
    "neuron",
    title="Spiking neuron",
    task="classification",
    signature="(S1)^10",
    summary="Simulated Izhikevich neuron: is the membrane depolarised? Time featurised on a torus.",
    category="periodic",
    parameters=(
        ParamInfo("n_samples", "int", 2000, "Time points drawn from the simulation.", 10, 20_000, step=100),
        ParamInfo("n_frequencies", "int", 10, "Strongest FFT frequencies: one circle S1 each.", 1, 20),
        ParamInfo(
            "label",
            "choice",
            "above_median",
            "'above_median': v above its median (balanced classes); 'spiking': v > -50 mV (about 6% positive).",
            choices=("above_median", "spiking"),
        ),
        ParamInfo("random_state", "seed", None, "Seed for the input noise and the subset of time points."),
    ),
)
def load_neuron(
    n_samples: int = 2000, n_frequencies: int = 10, label: str = "above_median", random_state=None
) -> Dataset:
    """A simulated spiking neuron on ``(S1)^n_frequencies``.

    A regular-spiking Izhikevich neuron (dt 0.5 ms, 20000 steps = 10 s, see
    :func:`simulate_izhikevich`) stands in for the paper's Allen Brain Atlas
    recordings. The label of a time point says whether the membrane potential
    is high: above the trace's median (``label="above_median"``, balanced
    classes) or above -50 mV (``label="spiking"``, the upstroke of a spike, about
    6% of the time). The features are the paper's FFT embedding of time,
    :func:`fourier_features`. ``n_samples`` time points are drawn without
    replacement.

    Returns
    -------
    Dataset
        ``X`` of shape (n_samples, 2 n_frequencies); ``extra["t_ms"]``,
        ``extra["v_mV"]`` for the chosen rows, ``extra["frequencies_hz"]``.
    """
    n_steps = 20_000
    n_samples, n_frequencies = int(n_samples), int(n_frequencies)
    if not 1 <= n_samples <= n_steps:
        raise ValueError(f"n_samples must be in [1, {n_steps}], got {n_samples}")
    if not 1 <= n_frequencies <= 100:
        raise ValueError(f"n_frequencies must be in [1, 100], got {n_frequencies}")
    rng = as_generator(random_state)
    t, v = simulate_izhikevich(n_steps=n_steps, random_state=rng)
    X, freqs = fourier_features(t, v, n_frequencies)
    if label not in ("above_median", "spiking"):
        raise ValueError(f"label must be 'above_median' or 'spiking', got {label!r}")
    rows = np.sort(rng.choice(n_steps, size=n_samples, replace=False))
    threshold = float(np.median(v)) if label == "above_median" else -50.0
    signature = f"(S1)^{n_frequencies}"
    return Dataset(
        X=X[rows],
        y=(v[rows] > threshold).astype(np.int64),
        signature=signature,
        task="classification",
        name="neuron",
        description=(
            "A simulated regular-spiking neuron (Izhikevich model, 10 s at 0.5 ms steps, driven by a 1 Hz "
            "sinusoidal current plus noise). Each row is a time point; the label says whether the membrane "
            f"potential is above {threshold:.1f} mV ("
            + ("its median" if label == "above_median" else "the upstroke of a spike")
            + f"). Time is featurised as in the paper: the {n_frequencies} strongest "
            f"FFT frequencies f_k of the voltage trace give {n_frequencies} angles 2 pi t f_k, a point on the "
            f"torus {signature}. Stands in for the paper's Allen Brain Atlas recordings (Neurons 33 and 46), "
            "which cannot be downloaded here."
        ),
        provenance="Generated by this project (Izhikevich 2003 neuron model); no external data, no licence terms.",
        feature_names=tuple(f"f{k}_{p}" for k in range(n_frequencies) for p in ("cos", "sin")),
        target_names=("low", "high"),
        extra={"t_ms": t[rows], "v_mV": v[rows], "frequencies_hz": freqs * 1000.0, "threshold_mV": threshold},
    )


# ---------------------------------------------------------------- traffic
# Mean vehicles per hour of the four junctions, roughly those of the Kaggle data the
# paper used (which cannot be downloaded here).
_JUNCTION_BASE = (45.0, 15.0, 13.0, 7.0)


def _traffic_rate(junction, day_of_year, weekday, hour_float):
    """Expected vehicles per hour: junction level x growth x season x time-of-day profile."""
    base = np.asarray(_JUNCTION_BASE)[junction]
    growth = 1.0 + 0.3 * day_of_year / 365.0
    season = 1.0 - 0.1 * np.cos(2.0 * np.pi * (day_of_year - 15.0) / 365.0)
    rush = np.exp(-0.5 * ((hour_float - 8.5) / 1.2) ** 2) + 1.2 * np.exp(-0.5 * ((hour_float - 17.5) / 1.5) ** 2)
    midday = np.exp(-0.5 * ((hour_float - 13.0) / 3.0) ** 2)
    night = 0.25 + 0.15 * np.cos(2.0 * np.pi * (hour_float - 14.0) / 24.0)
    weekend = weekday >= 5
    profile = night + np.where(weekend, 0.7 * midday, 0.9 * rush + 0.3 * midday)
    return base * growth * season * profile


@register(
    "traffic",
    title="Traffic (synthetic)",
    task="regression",
    signature="E1 x (S1)^4",
    summary="Synthetic vehicle counts at 4 junctions: junction x day of year, weekday, hour, minute.",
    category="periodic",
    parameters=(
        ParamInfo("n_samples", "int", 2000, "Number of (junction, time) readings.", 10, 100_000, step=100),
        ParamInfo("random_state", "seed", None, "Seed for the reading times and the counts."),
    ),
)
def load_traffic(n_samples: int = 2000, random_state=None) -> Dataset:
    """Synthetic traffic counts on ``E1 x (S1)^4``.

    Readings at random 5-minute times of 2017 at four junctions. The expected
    flow has a junction level, a yearly growth and season, weekday rush hours
    and a weekend midday bump; the count is Poisson around it (vehicles per
    hour). Features as in the paper: the junction id on E1 and day of year /
    365, weekday / 7, hour / 24 and minute / 60 as angles on four circles.

    Returns
    -------
    Dataset
        ``X`` of shape (n_samples, 9): ``[junction, cos, sin (day), cos, sin
        (weekday), cos, sin (hour), cos, sin (minute)]``, ``y`` in vehicles per
        hour; ``extra["timestamp"]`` (numpy datetime64).
    """
    n_samples = int(n_samples)
    if n_samples < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    rng = as_generator(random_state)
    minutes_in_year = 365 * 24 * 60
    start = np.datetime64("2017-01-01T00:00")
    offset = rng.integers(0, minutes_in_year // 5, size=n_samples) * 5
    timestamp = start + offset.astype("timedelta64[m]")
    day_of_year = offset // (24 * 60)
    minute_of_day = offset % (24 * 60)
    hour, minute = np.divmod(minute_of_day, 60)
    # 2017-01-01 was a Sunday; weekday 0 = Monday as in Python's datetime.
    weekday = (day_of_year + 6) % 7
    junction = rng.integers(0, len(_JUNCTION_BASE), size=n_samples)
    rate = _traffic_rate(junction, day_of_year, weekday, hour + minute / 60.0)
    counts = rng.poisson(rate).astype(np.float64)
    X = np.hstack(
        [
            (junction + 1.0)[:, None],  # junction ids 1..4 as in the Kaggle data
            angle_to_circle(2.0 * np.pi * day_of_year / 365.0),
            angle_to_circle(2.0 * np.pi * weekday / 7.0),
            angle_to_circle(2.0 * np.pi * hour / 24.0),
            angle_to_circle(2.0 * np.pi * minute / 60.0),
        ]
    )
    return Dataset(
        X=X,
        y=counts,
        signature="E1 x (S1)^4",
        task="regression",
        name="traffic",
        description=(
            f"{n_samples} synthetic traffic readings (vehicles per hour) at four junctions during 2017. Each row "
            "is a junction id on the line E1 and the time of the reading as four angles: day of year / 365, "
            "weekday / 7, hour / 24 and minute / 60, each on a circle S1. The expected flow has junction "
            "levels, yearly growth, a mild season, weekday rush hours and a weekend midday bump; counts are "
            "Poisson around it. Stands in for the paper's Kaggle traffic data, which cannot be downloaded here."
        ),
        provenance="Generated by this project; no external data, no licence terms.",
        feature_names=(
            "junction",
            "day_cos",
            "day_sin",
            "weekday_cos",
            "weekday_sin",
            "hour_cos",
            "hour_sin",
            "minute_cos",
            "minute_sin",
        ),
        extra={"timestamp": timestamp, "junction": junction + 1, "expected": rate},
    )


# ---------------------------------------------------------------- El Nino
@register(
    "el_nino",
    title="El Nino sea temperatures",
    task="regression",
    signature="E1 x S1",
    summary="Monthly Pacific sea-surface temperature 1950-2010: year on E1, month on S1.",
    category="periodic",
    parameters=(),
    requires=("statsmodels",),
)
def load_el_nino() -> Dataset:
    """NOAA's Nino 1+2 monthly sea-surface temperatures on ``E1 x S1``.

    One row per (year, month) from 1950 to 2010: the year on E1 and the month
    ``m`` as ``(cos 2 pi m / 12, sin 2 pi m / 12)`` on S1; the target is the mean
    sea-surface temperature in degrees Celsius.

    Raises
    ------
    ImportError
        When statsmodels is not installed (with the pip command).
    """
    require("statsmodels", "The El Nino dataset")
    from statsmodels.datasets import elnino

    table = elnino.load_pandas().data
    years = table["YEAR"].to_numpy(dtype=np.float64)
    values = table.drop(columns="YEAR").to_numpy(dtype=np.float64)  # (61, 12), JAN..DEC
    n_years, n_months = values.shape
    year = np.repeat(years, n_months)
    month = np.tile(np.arange(n_months), n_years)
    X = np.hstack([year[:, None], angle_to_circle(2.0 * np.pi * month / n_months)])
    return Dataset(
        X=X,
        y=values.ravel(),
        signature="E1 x S1",
        task="regression",
        name="el_nino",
        description=(
            f"Monthly mean sea-surface temperature (degrees Celsius) of the Pacific between 0-10 S and 90-80 W "
            f"(the Nino 1+2 region), {int(years[0])}-{int(years[-1])}. A row is one month of one year: the year "
            "on the line E1 and the month m = 0..11 as the angle 2 pi m / 12 on the circle S1."
        ),
        provenance=(
            "NOAA National Weather Service, Climate Prediction Center, ERSST.V3B Nino 1+2 index, shipped with "
            "statsmodels (statsmodels.datasets.elnino); public domain."
        ),
        feature_names=("year", "month_cos", "month_sin"),
        extra={"year": year, "month": month},
    )
