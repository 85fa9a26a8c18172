"""Random-waypoint mobility drawn from a run's seed, and shortest-path hop counts over time.

ns-2's `setdest` seeds its RNG heuristically from the clock (setdest.cc:349), so its scenarios cannot be
regenerated from a run's seed; random_waypoint() reimplements its original 1999 CMU model ("-v 1"):
every node starts uniform in the area and PAUSED (setdest.cc:509, time_arrival = TIME + PAUSE; with
PAUSE = 0 it moves at t = 0), then repeatedly picks a uniform destination and speed = uniform() * MAXSPEED,
travels in a straight line and pauses PAUSE on arrival (setdest.cc:666-698; the `speed == 0.0 || PAUSE == 0.0`
branch starts a move after a pause, or straight on arrival when PAUSE = 0). The draws keep setdest's order:
x then y of every node's start, then per move (in time order, ties by node index, as its event loop)
destination x, y and speed. So a shorter duration gives a prefix of the same tracks. min_speed > 0 draws
speed uniform in [min_speed, max_speed] like v2's uniform speed type, without v2's steady-state first trip.

Deviations from setdest, and why:
- RNG: random.Random(seed) (int or str; both seedings and random() are stable across Python versions),
  drawing uniforms as lo + (hi - lo) * random() explicitly.
- setdest marks each pause by a zero-speed `setdest <here> 0` at arrival (setdest.cc:679-701); we list only
  real moves (speed > 0): ns-2's MobileNode stops at its destination anyway (mobilenode.cc:483-486).
- setdest emits moves while TIME <= MAXTIME (setdest.cc:418); we list moves starting before `duration`.
- Values are rounded to 1e-6. A coordinate that rounds onto the area's border is redrawn, since ns-2's
  set_destination rejects x <= 0 or x >= maxX (mobilenode.cc:411-414); a speed that rounds to 0 is redrawn
  (setdest asserts speed != 0, setdest.cc:595); a next move's time is rounded UP so the node has arrived.
- Hop counts use distance <= radio_range; setdest's own GOD hop counts use d < 250 m (setdest.cc:103, 743).

"""

from __future__ import annotations

import heapq
import math
import random

import numpy as np


def _up(t: float) -> float:
    """t rounded up to the 1e-6 grid."""
    r = round(t, 6)
    return r if r >= t else round(r + 1e-6, 6)


def random_waypoint(
    nodes: int,
    area: tuple[float, float],
    max_speed: float,
    duration: float,
    seed: int | str,
    pause: float = 0.0,
    min_speed: float = 0.0,
) -> list[dict]:
    """One track per node: {"x", "y", "moves": [[t, x, y, speed], ...]}, each move a `$node setdest x y speed`
    at time t, in time order; only moves starting before `duration`. See the module docstring."""
    width, height = area
    if not (nodes >= 0 and width > 0 and height > 0 and duration > 0 and pause >= 0 and 0 <= min_speed <= max_speed):
        raise ValueError("need nodes >= 0, area > 0, duration > 0, pause >= 0, 0 <= min_speed <= max_speed")
    if max_speed <= 0:
        raise ValueError("max_speed must be > 0")
    rng = random.Random(seed)

    def coord(size: float) -> float:
        while not 0.0 < (v := round(size * rng.random(), 6)) < size:
            pass
        return v

    def speed() -> float:
        while (v := round(min_speed + (max_speed - min_speed) * rng.random(), 6)) <= 0.0:
            pass
        return v

    tracks = [{"x": coord(width), "y": coord(height), "moves": []} for _ in range(nodes)]
    heap = [(_up(pause), i) for i in range(nodes)]  # (time of the node's next move, node)
    while heap and heap[0][0] < duration:
        t, i = heapq.heappop(heap)
        moves = tracks[i]["moves"]
        x0, y0 = moves[-1][1:3] if moves else (tracks[i]["x"], tracks[i]["y"])
        x, y = coord(width), coord(height)
        s = speed()
        moves.append([t, x, y, s])
        heapq.heappush(heap, (_up(t + math.hypot(x - x0, y - y0) / s + pause), i))
    return tracks


def line(nodes: int, spacing: float, y: float = 0.0, x0: float = 0.0) -> list[dict]:
    """Static nodes at (x0 + i * spacing, y): a chain whose hop counts are known by hand."""
    return [{"x": round(x0 + i * spacing, 6), "y": round(y, 6), "moves": []} for i in range(nodes)]


def _along(t0, p0, dest, speed, t) -> np.ndarray:
    """Where a node that left p0 at t0 towards dest is at t; it stops on arrival (MobileNode's overshoot clamp)."""
    p0, dest = np.asarray(p0, float), np.asarray(dest, float)
    vec = dest - p0
    length = np.asarray(np.hypot(vec[..., 0], vec[..., 1]))
    done = np.clip(speed * (np.asarray(t) - t0), 0.0, None)
    frac = np.divide(done, length, out=np.ones_like(length), where=length > done)
    return p0 + frac[..., None] * vec


def _positions(track: dict, times: np.ndarray) -> np.ndarray:
    """Positions (len(times), 2) of one node. Each move starts where the node is then (mid-move or arrived)."""
    init = np.array([track["x"], track["y"]], float)
    moves = np.array(track["moves"], float).reshape(-1, 4)
    starts = [init]
    for prev, move in zip(moves[:-1], moves[1:], strict=True):
        starts.append(_along(prev[0], starts[-1], prev[1:3], prev[3], move[0]))
    # One extra last row "resting at the initial position", which index -1 (time before the first move) picks.
    t0 = np.append(moves[:, 0], 0.0)
    p0 = np.vstack([*starts[: len(moves)], init])
    dest = np.vstack([moves[:, 1:3], init])
    speed = np.append(moves[:, 3], 0.0)
    idx = np.searchsorted(moves[:, 0], times, side="right") - 1
    return _along(t0[idx], p0[idx], dest[idx], speed[idx], times)


def position(track: dict, t: float) -> tuple[float, float]:
    """Where the node is at time t: piecewise linear, resting at each destination until its next move."""
    x, y = _positions(track, np.array([t], float))[0]
    return float(x), float(y)


def hop_counts(tracks: list[dict], pairs: list[tuple[int, int]], radio_range: float, times) -> np.ndarray:
    """Hops of the shortest path src -> dst in the unit-disk graph (edge iff distance <= radio_range), per time
    (rows) and pair (columns); -1 when partitioned. A breadth-first search from every distinct source at every
    time at once: reach_{k+1} = reach_k @ adjacency."""
    if any(src == dst for src, dst in pairs):
        raise ValueError("a pair with src == dst has no path to count")
    times = np.asarray(times, float)
    pos = np.stack([_positions(tr, times) for tr in tracks], axis=1)  # (T, N, 2)
    gap = pos[:, :, None, :] - pos[:, None, :, :]
    adj = ((gap**2).sum(axis=-1) <= radio_range**2).astype(np.float32)  # (T, N, N), self-loops keep reach
    srcs, col = np.unique(np.array([src for src, _ in pairs], int), return_inverse=True)
    reach = np.zeros((len(times), len(srcs), len(tracks)), bool)
    reach[:, np.arange(len(srcs)), srcs] = True
    hops = np.where(reach, 0, -1)
    for k in range(1, len(tracks)):
        grown = (reach.astype(np.float32) @ adj) > 0
        new = grown & ~reach
        if not new.any():
            break
        hops[new] = k
        reach = grown
    return hops[:, col, np.array([dst for _, dst in pairs], int)]


def hop_durations(
    tracks: list[dict], src: int, dst: int, start: float, end: float, radio_range: float, step: float = 0.1
) -> dict[int, float]:
    """Seconds of [start, end) the shortest src -> dst path has i hops (-1: partitioned), each `step` judged
    at its midpoint: the t_i of BQM's expected throughput E = sum t_i T_i / sum t_i (Li, Eq. 4.1)."""
    if not end > start or not step > 0:
        raise ValueError("need end > start and step > 0")
    n = max(1, math.ceil((end - start) / step - 1e-9))
    bounds = np.minimum(start + step * np.arange(n + 1), end)
    bounds[-1] = end
    hops = hop_counts(tracks, [(src, dst)], radio_range, (bounds[:-1] + bounds[1:]) / 2)[:, 0]
    widths = np.diff(bounds)
    return {int(h): float(widths[hops == h].sum()) for h in np.unique(hops)}
