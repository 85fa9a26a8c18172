"""Random-waypoint tracks and hop counts (experiments/planning/mobility.py), against setdest's rules and hand-built
cases."""

import json
import math
from collections import deque

import numpy as np
import pytest

from experiments.planning.mobility import hop_counts, hop_durations, line, position, random_waypoint

AREA = (1500.0, 300.0)


def walk(seed=1, **kw):
    args = {"nodes": 20, "area": AREA, "max_speed": 20.0, "duration": 900.0, "seed": seed} | kw
    return random_waypoint(**args)


def arrivals(track):
    """(move, arrival time) per move, each leg starting at the previous destination."""
    here = (track["x"], track["y"])
    for t, x, y, s in track["moves"]:
        yield (t, x, y, s), t + math.dist(here, (x, y)) / s
        here = (x, y)


def test_same_seed_same_tracks_other_seed_differs():
    assert walk(seed=7) == walk(seed=7)
    assert walk(seed="run-3") == walk(seed="run-3")
    assert walk(seed=7) != walk(seed=8)


def test_shorter_duration_is_a_prefix():
    # Draws are made in event-time order, as setdest's loop does, so a longer run only adds later moves.
    short, long = walk(duration=100.0, pause=5.0), walk(duration=900.0, pause=5.0)
    for a, b in zip(short, long, strict=True):
        assert (a["x"], a["y"]) == (b["x"], b["y"])
        assert b["moves"][: len(a["moves"])] == a["moves"]
        assert len(b["moves"]) > len(a["moves"])


def test_tracks_stay_strictly_inside_the_area():
    # ns-2's set_destination rejects x <= 0 and x >= maxX (mobilenode.cc:411-414).
    tracks = walk()
    for tr in tracks:
        points = [(tr["x"], tr["y"])] + [(x, y) for _, x, y, _ in tr["moves"]]
        assert all(0 < x < AREA[0] and 0 < y < AREA[1] for x, y in points)
        for t in np.linspace(0, 900, 37):
            x, y = position(tr, t)
            assert 0 <= x <= AREA[0] and 0 <= y <= AREA[1]


def test_speeds_v1_and_min_speed():
    speeds = [m[3] for tr in walk() for m in tr["moves"]]
    assert speeds and all(0 < s <= 20.0 for s in speeds)
    assert min(speeds) < 2.0  # v1: uniform over (0, max], slow legs included
    speeds = [m[3] for tr in walk(min_speed=5.0) for m in tr["moves"]]
    assert speeds and all(5.0 <= s <= 20.0 for s in speeds)


@pytest.mark.parametrize("bad", [{"min_speed": 25.0}, {"min_speed": -1.0}, {"max_speed": 0.0}, {"pause": -1.0}])
def test_bad_parameters_raise(bad):
    with pytest.raises(ValueError):
        walk(**bad)


@pytest.mark.parametrize("pause", [0.0, 30.0])
def test_move_times_ascend_before_duration_and_pauses_last_p(pause):
    for tr in walk(pause=pause):
        legs = list(arrivals(tr))
        times = [m[0] for m, _ in legs]
        assert times == sorted(times) and all(t < 900.0 for t in times)
        # setdest.cc:509: a node starts with a pause (time_arrival = PAUSE); with PAUSE 0 it moves at once.
        assert times[0] == pause
        for (_, arrived), (nxt, _) in zip(legs, legs[1:], strict=False):
            assert nxt[0] - arrived == pytest.approx(pause, abs=2e-6)
            assert nxt[0] >= arrived - 1e-9  # rounded up: the node has arrived before it leaves
        # The leg after the last listed one would start at or after the duration.
        assert legs[-1][1] + pause >= 900.0 - 1e-6


def test_values_are_on_the_micro_grid_and_survive_json():
    tracks = walk(pause=3.3)
    assert json.loads(json.dumps(tracks)) == tracks
    values = [v for tr in tracks for v in [tr["x"], tr["y"], *(v for m in tr["moves"] for v in m)]]
    assert all(v == round(v, 6) for v in values)


TRACK = {"x": 0.0, "y": 0.0, "moves": [[10.0, 100.0, 0.0, 10.0], [30.0, 100.0, 50.0, 5.0], [32.0, 0.0, 0.0, 1.0]]}


def test_position_piecewise_linear():
    assert position(TRACK, 0.0) == (0.0, 0.0)
    assert position(TRACK, 10.0) == (0.0, 0.0)  # a move's start: still where it was
    assert position(TRACK, 15.0) == pytest.approx((50.0, 0.0))  # halfway
    assert position(TRACK, 20.0) == pytest.approx((100.0, 0.0))  # arrived
    assert position(TRACK, 29.0) == pytest.approx((100.0, 0.0))  # stays until its next move
    assert position(TRACK, 30.0) == pytest.approx((100.0, 0.0))


def test_new_setdest_mid_move_starts_from_the_current_position():
    # At 32 the node is at (100, 10) on its way to (100, 50); it turns there towards the origin at 1 m/s.
    assert position(TRACK, 32.0) == pytest.approx((100.0, 10.0))
    d = math.hypot(100.0, 10.0)
    assert position(TRACK, 32.0 + d / 2) == pytest.approx((50.0, 5.0))
    assert position(TRACK, 32.0 + d + 100) == pytest.approx((0.0, 0.0), abs=1e-9)


def test_line_hop_counts():
    chain = line(11, 200.0)
    assert [tr["x"] for tr in chain] == [200.0 * i for i in range(11)] and all(not tr["moves"] for tr in chain)
    pairs = [(0, i) for i in range(1, 11)] + [(10, 0), (3, 7)]
    hops = hop_counts(chain, pairs, 250.0, [0.0, 5.0, 100.0])
    assert hops.shape == (3, 12) and hops.dtype.kind == "i"
    assert (hops == [*range(1, 11), 10, 4]).all()
    assert (hop_counts(line(11, 300.0), pairs, 250.0, [0.0, 7.0]) == -1).all()
    assert (hop_counts(line(3, 250.0), [(0, 2)], 250.0, [0.0]) == 2).all()  # range is inclusive


def test_hop_counts_rejects_src_equal_dst():
    with pytest.raises(ValueError):
        hop_counts(line(3, 100.0), [(0, 1), (2, 2)], 250.0, [0.0])


def bfs_hops(tracks, src, dst, radio_range, t):
    pts = [position(tr, t) for tr in tracks]
    seen, todo = {src: 0}, deque([src])
    while todo:
        u = todo.popleft()
        for v in range(len(pts)):
            if v not in seen and math.dist(pts[u], pts[v]) <= radio_range:
                seen[v] = seen[u] + 1
                todo.append(v)
    return seen.get(dst, -1)


def test_hop_counts_match_a_plain_bfs_on_random_tracks():
    tracks = walk(nodes=15, seed=11)
    pairs = [(0, 1), (0, 14), (5, 3), (14, 0), (7, 2)]
    times = np.linspace(0.0, 900.0, 31)
    hops = hop_counts(tracks, pairs, 250.0, times)
    expected = [[bfs_hops(tracks, s, d, 250.0, t) for s, d in pairs] for t in times]
    assert hops.tolist() == expected
    assert len(np.unique(hops)) >= 3  # the case is not trivial: several hop counts occur


def test_hop_durations_static_line():
    durations = hop_durations(line(4, 200.0), 0, 3, 2.0, 12.05, 250.0)
    assert list(durations) == [3]
    assert durations[3] == pytest.approx(10.05, abs=1e-9)


def test_hop_durations_of_a_node_leaving():
    # Node 1 sits at 200; node 2 leaves x = 300 at t = 0 along the x axis at 10 m/s. Node 0 (at 0) reaches it
    # through node 1 (2 hops) while 2 is within 250 m of 1, i.e. x <= 450, until t = 15; never directly.
    tracks = line(2, 200.0) + [{"x": 300.0, "y": 0.0, "moves": [[0.0, 1400.0, 0.0, 10.0]]}]
    durations = hop_durations(tracks, 0, 2, 0.0, 40.0, 250.0, step=0.1)
    assert set(durations) == {2, -1}
    assert durations[2] == pytest.approx(15.0, abs=0.1)
    assert durations[-1] == pytest.approx(25.0, abs=0.1)
    assert sum(durations.values()) == pytest.approx(40.0, abs=1e-9)
    # A coarser step shifts the boundary by at most one step.
    assert hop_durations(tracks, 0, 2, 0.0, 40.0, 250.0, step=4.0)[2] == pytest.approx(15.0, abs=4.0)
