"""Strict TCP(alpha, beta) (patch 0003): `gaimd_strict_` makes every window decrease use decrease_num_.

Stock ns-2.35 halves the window on the first decrease of a connection, on any decrease
in slow start, and halves ssthresh_ after a timeout, whatever decrease_num_ says. With
`gaimd_strict_ 1` each of these multiplies by decrease_num_ (beta) instead; the default
(0) keeps stock behaviour, byte for byte.

Every scenario is scripts/gaimd_dumbbell.tcl: one sender over a 1 Mb/s bottleneck with a
12-packet DropTail buffer (losses from the first slow start on) and a 1 s outage at
t = 5 s (retransmission timeouts), increase_num_ 0.3125 and decrease_num_ 0.875 unless
a test says otherwise, tracing cwnd_ and ssthresh_.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "gaimd_dumbbell.tcl"
ALPHA, BETA = 0.3125, 0.875
# The paper's four TCP(alpha, beta) (Zhang, Mamas, Tsaoussidis, §3.1).
PAPER_PAIRS = [(0.3125, 0.875), (0.5833, 0.75), (1.0, 0.5), (1.25, 0.25)]
# The trace prints cwnd_ with three decimals: the window before a decrease is known
# to +-0.0005, the window after it to +-0.0005.
HALF_ULP = 0.0005


@dataclass
class Decrease:
    """One window decrease: the ssthresh_ change and the cwnd_ change at the same instant."""

    time: float
    window: float  # cwnd_ just before
    ssthresh_before: int
    ssthresh: int  # after (after ns-2's floor of 2)
    cwnd_after: float

    @property
    def in_slow_start(self) -> bool:
        return self.window < self.ssthresh_before


def run(binary: Path, tmp_path: Path, agent: str, strict, alpha=ALPHA, beta=BETA) -> str:
    trace = tmp_path / f"{agent}-{strict}-{alpha}-{beta}-{binary.name}.tr"
    proc = subprocess.run(
        [str(binary), str(SCRIPT), agent, str(strict), str(alpha), str(beta), str(trace)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stderr == "", proc.stderr[-500:]
    return trace.read_text()


def decreases(trace: str) -> list[Decrease]:
    """Every ssthresh_ change after t = 0, with the cwnd_ before and after it.

    The sender sets ssthresh_ only in slowdown(), and first (then cwnd_) in the same
    instant; a traced variable is written only when its value changes, so a cwnd_
    left unchanged (a timeout at cwnd_ 1) has no line of its own.
    """
    rows = []
    for line in trace.splitlines():
        fields = line.split()
        rows.append((float(fields[0]), fields[5], float(fields[6])))
    events: list[Decrease] = []
    cwnd, ssthresh, prev = None, None, None
    for i, (t, name, value) in enumerate(rows):
        if name == "cwnd_":
            cwnd = value
        elif t > 0 and prev is not None and prev[0] == t and prev[1] == "ssthresh_":
            events[-1].ssthresh = int(value)  # the floor of 2 applied in the same call
            ssthresh = int(value)
        elif t > 0:
            after = next((v for (u, n, v) in rows[i + 1 :] if u == t and n == "cwnd_"), cwnd)
            events.append(Decrease(t, cwnd, ssthresh, int(value), after))
            ssthresh = int(value)
        else:
            ssthresh = int(value)
        prev = (t, name)
    return events


def expected_ssthresh(window: float, factor: float) -> set[int]:
    """ssthresh_ = int(factor * window), floored at 2, for any window the trace's rounding allows."""
    return {max(2, int(factor * w)) for w in (window - HALF_ULP, window, window + HALF_ULP)}


def cwnd_matches(event: Decrease, factor: float) -> bool:
    return abs(event.cwnd_after - factor * event.window) <= factor * HALF_ULP + HALF_ULP


def split(events: list[Decrease]) -> tuple[list[Decrease], list[Decrease]]:
    """(loss-recovery decreases, timeouts) of Reno/NewReno: a timeout restarts cwnd_ at 1."""
    timeouts = [e for e in events if e.cwnd_after == 1.0]
    return [e for e in events if e.cwnd_after != 1.0], timeouts


# --- the knob -------------------------------------------------------------


def test_knob_defaults_to_zero_and_binds(ns_binary, tmp_path):
    script = tmp_path / "knob.tcl"
    script.write_text(
        """
set ns [new Simulator]
puts "class [Agent/TCP set gaimd_strict_]"
foreach a {Agent/TCP Agent/TCP/Reno Agent/TCP/Newreno Agent/TCP/Sack1} {
    set t [new $a]
    puts "$a [$t set gaimd_strict_]"
}
$t set gaimd_strict_ 1
puts "set [$t set gaimd_strict_]"
"""
    )
    proc = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # a bound variable without a default in ns-default.tcl warns here
    assert dict(line.split() for line in proc.stdout.splitlines()) == {
        "class": "0",
        "Agent/TCP": "0",
        "Agent/TCP/Reno": "0",
        "Agent/TCP/Newreno": "0",
        "Agent/TCP/Sack1": "0",
        "set": "1",
    }


# --- off: stock behaviour -------------------------------------------------


@pytest.mark.parametrize("agent", ["TCP", "Reno", "Newreno"])
def test_default_is_stock_ns(agent, ns_binary, debian_ns, tmp_path):
    """Knob unset, knob 0 and Debian's ns (which has no knob) give the same trace."""
    unset = run(ns_binary, tmp_path, agent, "default")
    assert run(ns_binary, tmp_path, agent, 0) == unset
    assert run(debian_ns, tmp_path, agent, "default") == unset
    assert len(decreases(unset)) >= 5


@pytest.mark.parametrize("agent", ["Reno", "Newreno"])
def test_off_first_decrease_and_timeouts_halve(agent, ns_binary, tmp_path):
    events = decreases(run(ns_binary, tmp_path, agent, 0))
    first = events[0]
    assert first.in_slow_start and first.window > 30
    assert cwnd_matches(first, 0.5) and not cwnd_matches(first, BETA)
    assert first.ssthresh in expected_ssthresh(first.window, 0.5)
    recoveries, timeouts = split(events)
    big = [e for e in timeouts if e.window > 4]
    assert big, "the outage caused no timeout at a window above 4"
    for e in timeouts:
        assert e.ssthresh in expected_ssthresh(e.window, 0.5), e
    assert any(e.ssthresh not in expected_ssthresh(e.window, BETA) for e in big)
    # Later decreases in congestion avoidance already use decrease_num_ in stock ns-2.
    later = [e for e in recoveries[1:] if not e.in_slow_start]
    assert later and all(cwnd_matches(e, BETA) for e in later)
    assert all(e.ssthresh in expected_ssthresh(e.window, BETA) for e in later)


# --- on: strict TCP(alpha, beta) ------------------------------------------


@pytest.mark.parametrize("agent", ["Reno", "Newreno"])
def test_strict_every_decrease_multiplies_by_beta(agent, ns_binary, tmp_path):
    recoveries, timeouts = split(decreases(run(ns_binary, tmp_path, agent, 1)))
    assert len(recoveries) >= 4
    first = recoveries[0]
    assert first.in_slow_start and first.window > 30
    assert not cwnd_matches(first, 0.5)
    # a decrease in slow start other than the first (slow start after a timeout)
    assert any(e.in_slow_start for e in recoveries[1:])
    for e in recoveries:
        assert cwnd_matches(e, BETA), e
        assert e.ssthresh in expected_ssthresh(e.window, BETA), e


@pytest.mark.parametrize("agent", ["Reno", "Newreno"])
def test_strict_timeout_sets_ssthresh_to_beta_window(agent, ns_binary, tmp_path):
    _, timeouts = split(decreases(run(ns_binary, tmp_path, agent, 1)))
    big = [e for e in timeouts if e.window > 4]
    assert big, "no timeout at a window above 4"
    for e in timeouts:
        assert e.cwnd_after == 1.0
        assert e.ssthresh in expected_ssthresh(e.window, BETA), e
    assert any(e.ssthresh not in expected_ssthresh(e.window, 0.5) for e in big)


def test_tahoe_ssthresh(ns_binary, tmp_path):
    """Agent/TCP (Tahoe) restarts cwnd_ at 1 on every loss; only ssthresh_ carries beta."""
    off = decreases(run(ns_binary, tmp_path, "TCP", 0))
    assert off[0].in_slow_start and off[0].ssthresh in expected_ssthresh(off[0].window, 0.5)
    assert off[0].ssthresh not in expected_ssthresh(off[0].window, BETA)
    on = decreases(run(ns_binary, tmp_path, "TCP", 1))
    assert len(on) >= 4 and on[0].window > 30
    for e in on:
        assert e.cwnd_after == 1.0
        assert e.ssthresh in expected_ssthresh(e.window, BETA), e


@pytest.mark.parametrize(("alpha", "beta"), PAPER_PAIRS)
def test_strict_paper_pairs(alpha, beta, ns_binary, tmp_path):
    events = decreases(run(ns_binary, tmp_path, "Newreno", 1, alpha, beta))
    recoveries, timeouts = split(events)
    assert recoveries and timeouts
    for e in recoveries:
        assert cwnd_matches(e, beta), e
        assert e.ssthresh in expected_ssthresh(e.window, beta), e
    for e in timeouts:
        assert e.ssthresh in expected_ssthresh(e.window, beta), e
    if beta == 0.5:  # standard TCP: the knob changes nothing
        assert run(ns_binary, tmp_path, "Newreno", 1, alpha, beta) == run(
            ns_binary, tmp_path, "Newreno", 0, alpha, beta
        )
