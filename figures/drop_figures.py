"""Figs. 1.1-1.3 and 1.5 of Alemu's thesis (configs/psand.yaml): the drop functions of figures/drop_functions.py,
and, for RED and RIO, ns-2's own (average queue, drop probability) pairs of experiment drop_functions on them.

red_figure and rio_figure: one panel per level of `panels` (restricted to `levels`). The curve is the thesis's
formula (Eq. 1.2 or 1.3) with the parameters the run's queue was configured with (params.json: thresh_,
maxthresh_, 1/linterm_, gentle_; for RIO the In or Out set, see queue_function); the points are the queue's
average and the probability ns-2 computed from it (monitors.queue_vars), sampled every 0.01 s. ns-2 computes the
probability at an arrival only while the average is at least Min_th and the queue holds more than one packet, and
not at the first such arrival after the average crossed Min_th; Queue/RED computes it at any average above
(use_mark_p_ true, ns-2.35's default: 1 from Max_th, or 2 Max_th in gentle mode), Queue/RED/RIO only below Max
(above, it drops without computing). Samples outside that range carry an older value and are drawn grey. The
panel counts the samples in the range and how many lie on the curve (within ON_CURVE, READ_BACK). rio_figure's
second panel is RIO's Out function from the same queue's Out parameters, a curve only (see configs/psand.yaml).

sred_figure and dsred_figure: the formulas only (ns-2.35 implements neither); they read no runs.
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from figures import drop_functions as df
from figures.common import ExperimentData, levels, save_figure

BOTTLENECK = "core0"
ON_CURVE = 1e-5  # |sampled probability - formula(sampled average)|: queue_vars.tsv's printed digits allow for this
# ns-2 prints a TracedDouble (ave_, prob1_) with 6 significant digits: the true average lies within this relative
# distance of the sampled one, which matters at a jump (an average of 14.999996 reads 15 with a probability of 0.1)
READ_BACK = 5e-6
GRID = np.linspace(0, df.BUFFER, 1401)


@dataclass(frozen=True)
class Sampled:
    """A run's core queue as a drop function of the thesis: its parameters, the series of the sampled average
    and probability, a label, and [low, high): where ns-2 recomputes the probability at an arrival."""

    params: df.Red
    x: str
    y: str
    label: str
    low: float
    high: float


def queue_function(queue: dict, out: bool = False) -> Sampled:
    """A run's core queue ({class, knobs} of params.json) as a drop function. Queue/RED: thresh_, maxthresh_,
    1/linterm_, gentle_, with ave_ and prob1_. Queue/RED/RIO, In (priority_method_ 1, every packet In here):
    in_thresh_, in_maxthresh_, 1/in_linterm_, with in_ave_ and in_prob1_; its Out function (`out`): out_thresh_,
    out_maxthresh_ and 1/linterm_ (ns-2's Out probability takes the queue's linterm_), with ave_ and out_prob1_."""
    cls, knobs = queue["class"], queue["knobs"]
    gentle = bool(knobs.get("gentle_", False))
    if cls == "Queue/RED":
        params = df.Red(knobs["thresh_"], knobs["maxthresh_"], 1 / knobs["linterm_"], gentle)
        label = "gentle (Eq. 1.3)" if gentle else "strict (Eq. 1.2)"
        top = (2 if gentle else 1) * params.max_th
        high = math.inf if knobs.get("use_mark_p_", True) else top
        return Sampled(params, "qvar_ave", "qvar_prob1", label, params.min_th, high)
    if cls == "Queue/RED/RIO" and not out:
        if int(knobs.get("priority_method_", 0)) != 1:
            raise ValueError("RIO In: priority_method_ 1 (In by fid) is the only way runs here get In packets")
        params = df.Red(knobs["in_thresh_"], knobs["in_maxthresh_"], 1 / knobs["in_linterm_"],
                        gentle or bool(knobs.get("in_gentle_", False)))  # fmt: skip
        return Sampled(params, "qvar_in_ave", "qvar_in_prob1", "In packets, of Avg_In", params.min_th,
                       (2 if params.gentle else 1) * params.max_th)  # fmt: skip
    if cls == "Queue/RED/RIO":
        params = df.Red(knobs["out_thresh_"], knobs["out_maxthresh_"], 1 / knobs["linterm_"],
                        gentle or bool(knobs.get("out_gentle_", False)))  # fmt: skip
        return Sampled(params, "qvar_ave", "qvar_out_prob1", "Out packets, of Avg_total", params.min_th,
                       (2 if params.gentle else 1) * params.max_th)  # fmt: skip
    raise ValueError(f"{cls}: no drop function of the thesis for this queue class")


def run_queues(data: ExperimentData, axis: str) -> dict:
    """Level of `axis` -> the core queue of its (first) run's params.json."""
    runs = pd.read_parquet(data.directory / "runs.parquet", columns=[axis, "directory"])
    out = {}
    for level, directory in zip(runs[axis], runs["directory"], strict=True):
        if level not in out:
            out[level] = json.loads((Path(directory) / "params.json").read_text())["core_queue"]
    return out


def sampled_pairs(data: ExperimentData, axis: str, level, x: str, y: str) -> pd.DataFrame:
    """Columns t, x (the average), y (the probability) of the bottleneck's samples at one level (first seed)."""
    series = data.series[(data.series[axis] == level) & (data.series["scope"] == BOTTLENECK)]
    series = series[series["seed"] == series["seed"].min()]
    wide = series[series["metric"].isin([x, y])].pivot_table(index="t", columns="metric", values="value")
    if x not in wide.columns or y not in wide.columns:
        raise ValueError(f"{axis} = {level}: no {x}/{y} series of {BOTTLENECK} (monitors.queue_vars?)")
    return wide.rename(columns={x: "x", y: "y"}).reset_index()[["t", "x", "y"]]


def agreement(pairs: pd.DataFrame, fn: Sampled) -> pd.DataFrame:
    """The pairs with `inside` (the average where ns-2 recomputes the probability) and `error`: |y - formula|
    at the sampled average or either end of its read-back rounding (READ_BACK), whichever is least."""
    x, y = pairs["x"].to_numpy(), pairs["y"].to_numpy()
    errors = [abs(y - df.red(x * (1 + s * READ_BACK), fn.params)) for s in (0, -1, 1)]
    return pairs.assign(inside=(pairs["x"] >= fn.low) & (pairs["x"] < fn.high), error=np.minimum.reduce(errors))


def overlay_panel(ax, data: ExperimentData, axis: str, level, fn: Sampled, title: str) -> None:
    """The formula with fn's parameters and ns-2's sampled pairs of one level."""
    pairs = agreement(sampled_pairs(data, axis, level, fn.x, fn.y), fn)
    inside = pairs[pairs["inside"]]
    ax.plot(GRID, df.red(GRID, fn.params), color="black", lw=1.2, label="formula", zorder=1)
    ax.scatter(pairs.loc[~pairs["inside"], "x"], pairs.loc[~pairs["inside"], "y"], s=4, color="0.75",
               label="ns-2, not recomputed (older value)", zorder=2)  # fmt: skip
    ax.scatter(inside["x"], inside["y"], s=5, color="tab:red", label="ns-2 (average, probability)", zorder=3)
    on = int((inside["error"] <= ON_CURVE).sum())
    worst = inside["error"].max() if len(inside) else float("nan")
    ax.set_title(title, fontsize=8)
    ax.text(0.02, 0.97, f"{on} of {len(inside)} samples with average >= {fn.low:g}"
            + (f" and < {fn.high:g}" if math.isfinite(fn.high) else "")
            + f" on the curve\n(largest gap {worst:.1e})", transform=ax.transAxes, va="top", fontsize=7)  # fmt: skip


def describe(fn: Sampled, head: str) -> str:
    p = fn.params
    return f"{head}: {fn.label}\nMin {p.min_th:g}, Max {p.max_th:g}, P_max {p.max_p:g}"


def panels_of(data: ExperimentData, artifact: dict) -> tuple[str, dict, list]:
    axis = artifact["panels"]
    queues = run_queues(data, axis)
    panels = [level for level in artifact.get("levels", levels(data.series, axis)) if level in queues]
    if not panels:
        raise ValueError(f"{artifact['id']}: no runs of {artifact.get('levels')} in {artifact['experiment']}")
    return axis, queues, panels


def finish(fig, grid, out: Path, artifact: dict) -> list[Path]:
    for ax in grid[0]:
        ax.set_xlabel("average queue size (packets)")
        ax.set_xlim(0, df.BUFFER)
    grid[0][0].set_ylabel("drop probability")
    grid[0][-1].legend(fontsize=6, loc="lower right")
    fig.suptitle(textwrap.fill(artifact.get("caption", artifact["id"]), 110) + "\n(curve: the formula; points: "
                 "ns-2's average and probability sampled every 0.01 s, first seed)", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return save_figure(fig, Path(out))


def red_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.1: one panel per level (RED strict, RED gentle), each the formula and ns-2's pairs."""
    axis, queues, panels = panels_of(data, artifact)
    fig, grid = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True, squeeze=False)
    for ax, level, letter in zip(grid[0], panels, "abcdefgh", strict=False):
        fn = queue_function(queues[level])
        overlay_panel(ax, data, axis, level, fn, describe(fn, f"({letter}) {level}"))
    return finish(fig, grid, out, artifact)


def rio_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.5: RIO's In function with ns-2's pairs (the first level of `levels`), and its Out function from
    the same queue's Out parameters, a curve only."""
    axis, queues, panels = panels_of(data, artifact)
    level = panels[0]
    fig, grid = plt.subplots(1, 2, figsize=(8.4, 3.6), sharey=True, squeeze=False)
    fn_in, fn_out = queue_function(queues[level]), queue_function(queues[level], out=True)
    overlay_panel(grid[0][0], data, axis, level, fn_in, describe(fn_in, f"(a) {level}"))
    ax = grid[0][1]
    ax.plot(GRID, df.red(GRID, fn_out.params), color="black", lw=1.2, label="formula")
    ax.plot(GRID, df.red(GRID, fn_in.params), color="black", lw=0.8, ls=":", label="In (for comparison)")
    ax.set_title(describe(fn_out, "(b) Out"), fontsize=8)
    note = ("formula only: ns-2.35 updates Avg_total only at In\narrivals, and every flow here is In (checked in\n"
            "tests/ns2/test_drop_probability.py)")  # fmt: skip
    ax.text(0.02, 0.97, note, transform=ax.transAxes, va="top", fontsize=7)
    return finish(fig, grid, out, artifact)


def formula_figure(out: Path, artifact: dict, curves: list[tuple[str, np.ndarray]], xlabel: str, note: str):
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for label, values in curves:
        ax.plot(GRID, values, lw=1.3, label=label, drawstyle="steps-post" if "Eq. 1.6" in label else "default")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("drop probability")
    ax.set_xlim(0, df.BUFFER)
    ax.legend(fontsize=7)
    fig.suptitle(textwrap.fill(artifact.get("caption", artifact["id"]), 90) + f"\n({note})", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, Path(out))


def sred_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.2: Eq. 1.6's levels and Eq. 1.7 for a few numbers of flows (parameters: drop_functions.SRED)."""
    p = df.SRED
    curves = [(f"p_SRED (Eq. 1.6), B {p.buffer:g}, p_max {p.p_max:g}", df.sred_levels(GRID, p))]
    curves += [(f"simple SRED (Eq. 1.7), N = {n}", df.sred(GRID, p, n)) for n in df.SRED_FLOWS]
    return formula_figure(out, artifact, curves, "instantaneous queue size K_cur (packets)",
                          "formula only: ns-2.35 has no SRED; parameters are our choices")  # fmt: skip


def dsred_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.3: Eq. 1.12 for each gamma of drop_functions.DSRED."""
    curves = [(f"gamma {d.gamma:g} (K_l {d.k_l:g}, K_m {d.knee:g}, K_h {d.k_h:g})", df.dsred(GRID, d))
              for d in df.DSRED]  # fmt: skip
    return formula_figure(out, artifact, curves, "average queue size (packets)",
                          "formula only: ns-2.35 has no DSRED; parameters are our choices")  # fmt: skip
