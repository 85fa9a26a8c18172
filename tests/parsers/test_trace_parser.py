"""Trace parsing on a hand-written trace whose answers are worked out by hand below."""

from __future__ import annotations

import json
import math

import pytest

from parsers import flow_sums
from parsers.hops import build_hops
from parsers.journeys import build_journeys
from parsers.link_events import LinkEventCollector, LinkEvents
from parsers.ns2_trace import line_aligned_ranges, read_trace, scan_trace
from parsers.run_meta import LinkTable

# Dumbbell C0=0 -> C1=1; flow 1 from node 2 to node 3, flow 2 from node 4 to node 5.
META = {
    "schema": "ns2-repro/run-meta/1",
    "links": [
        {"name": "core0", "from": 0, "to": 1, "role": "core", "traced": True, "monitored": True},
        {"name": "entry1", "from": 2, "to": 0, "role": "entry", "fid": 1, "traced": True, "monitored": False},
        {"name": "exit1", "from": 1, "to": 3, "role": "exit", "fid": 1, "traced": True, "monitored": False},
        {"name": "entry2", "from": 4, "to": 0, "role": "entry", "fid": 2, "traced": True, "monitored": False},
        {"name": "exit2", "from": 1, "to": 5, "role": "exit", "fid": 2, "traced": True, "monitored": False},
    ],
}
# uid 0: flow 1, entry -> core (4 ms in queue) -> exit, received at 0.127.
# uid 1: flow 2, dropped on the core link.   uid 2: flow 1's ack, on reverse links only (no journey, no hop).
# uid 3: flow 1, still queued on the core link when the trace ends.   uid 4: flow 2, dropped on its entry link.
# uid 5: an `r` on exit1 with nothing before it.   uid 6: a `-` on the core link without its `+`.
# uid 7: flow 2 with a CE flag, crosses without queueing.   uid 8: an ECN ack dropped on a link meta.json doesn't name.
TRACE = """\
+ 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0
- 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0
r 0.101 2 0 tcp 1040 ------- 1 2.0 3.0 0 0
+ 0.101 0 1 tcp 1040 ------- 1 2.0 3.0 0 0
+ 0.102 4 0 cbr 500 ------- 2 4.0 5.0 0 1
- 0.102 4 0 cbr 500 ------- 2 4.0 5.0 0 1
r 0.103 4 0 cbr 500 ------- 2 4.0 5.0 0 1
+ 0.103 0 1 cbr 500 ------- 2 4.0 5.0 0 1
d 0.103 0 1 cbr 500 ------- 2 4.0 5.0 0 1
- 0.105 0 1 tcp 1040 ------- 1 2.0 3.0 0 0
r 0.125 0 1 tcp 1040 ------- 1 2.0 3.0 0 0
+ 0.125 1 3 tcp 1040 ------- 1 2.0 3.0 0 0
- 0.125 1 3 tcp 1040 ------- 1 2.0 3.0 0 0
r 0.127 1 3 tcp 1040 ------- 1 2.0 3.0 0 0
+ 0.127 3 1 ack 40 ------- 1 3.0 2.0 0 2
- 0.127 3 1 ack 40 ------- 1 3.0 2.0 0 2
r 0.129 3 1 ack 40 ------- 1 3.0 2.0 0 2
+ 0.129 1 0 ack 40 ------- 1 3.0 2.0 0 2
- 0.129 1 0 ack 40 ------- 1 3.0 2.0 0 2
+ 0.13 2 0 tcp 1040 ------- 1 2.0 3.0 1 3
- 0.13 2 0 tcp 1040 ------- 1 2.0 3.0 1 3
r 0.131 2 0 tcp 1040 ------- 1 2.0 3.0 1 3
+ 0.131 0 1 tcp 1040 ------- 1 2.0 3.0 1 3
+ 0.14 4 0 cbr 500 ------- 2 4.0 5.0 1 4
d 0.14 4 0 cbr 500 ------- 2 4.0 5.0 1 4
r 0.149 1 0 ack 40 ------- 1 3.0 2.0 0 2
+ 0.149 0 2 ack 40 ------- 1 3.0 2.0 0 2
- 0.149 0 2 ack 40 ------- 1 3.0 2.0 0 2
r 0.15 1 3 tcp 1040 ------- 1 2.0 3.0 7 5
r 0.15 0 2 ack 40 ------- 1 3.0 2.0 0 2
- 0.151 0 1 tcp 1040 ------- 1 2.0 3.0 8 6
+ 0.16 4 0 cbr 500 C------ 2 4.0 5.0 2 7
- 0.16 4 0 cbr 500 C------ 2 4.0 5.0 2 7
r 0.161 4 0 cbr 500 C------ 2 4.0 5.0 2 7
+ 0.161 0 1 cbr 500 C------ 2 4.0 5.0 2 7
- 0.161 0 1 cbr 500 C---E-- 2 4.0 5.0 2 7
+ 0.17 3 1 ack 40 ----E-N 1 3.0 2.0 1 8
- 0.17 3 1 ack 40 ----E-N 1 3.0 2.0 1 8
r 0.172 3 1 ack 40 ----E-N 1 3.0 2.0 1 8
+ 0.172 1 0 ack 40 ----E-N 1 3.0 2.0 1 8
d 0.172 1 0 ack 40 ----E-N 1 3.0 2.0 1 8
r 0.181 0 1 cbr 500 C---E-- 2 4.0 5.0 2 7
+ 0.181 1 5 cbr 500 C---E-- 2 4.0 5.0 2 7
- 0.181 1 5 cbr 500 C---E-- 2 4.0 5.0 2 7
r 0.182 1 5 cbr 500 C---E-- 2 4.0 5.0 2 7
"""
# uid 7 is CE-marked at core0 (flags' fifth character E from its dequeue on): marked
J = ("fid", "uid", "seq", "ptype", "size", "t_enter", "t_exit", "delay", "dropped", "drop_time", "drop_link", "marked")
EXPECTED_JOURNEYS = [
    dict(zip(J, row, strict=True))
    for row in [
        (1, 0, 0, "tcp", 1040, 0.1, 0.127, 0.027, False, None, None, False),
        (2, 1, 0, "cbr", 500, 0.102, None, None, True, 0.103, "core0", False),
        (1, 3, 1, "tcp", 1040, 0.13, None, None, False, None, None, False),
        (2, 4, 1, "cbr", 500, 0.14, None, None, True, 0.14, "entry2", False),
        (2, 7, 2, "cbr", 500, 0.16, 0.182, 0.022, False, None, None, True),
    ]
]
H = ("link", "fid", "uid", "size", "t_enqueue", "t_dequeue", "queue_delay", "dropped")
EXPECTED_HOPS = [
    dict(zip(H, row, strict=True))
    for row in [
        ("core0", 1, 0, 1040, 0.101, 0.105, 0.004, False),
        ("core0", 2, 1, 500, 0.103, None, None, True),
        ("core0", 1, 3, 1040, 0.131, None, None, False),
        ("core0", 2, 7, 500, 0.161, 0.161, 0.0, False),
    ]
]
# fid 1: uid 0 (1040 B) +3 -3 r3; ack uid 2 (40 B) +3 -3 r3; uid 3 (1040 B) +2 -1 r1; uid 5 r1; uid 6 -1;
#        ack uid 8 (40 B) +2 -1 r1 d1.   fid 2 (500 B): uid 1 +2 -1 r1 d1; uid 4 +1 d1; uid 7 +3 -3 r3.
EXPECTED_FLOW_SUMS = [
    {"fid": 1, "event": "+", "packets": 10, "bytes": 3 * 1040 + 3 * 40 + 2 * 1040 + 2 * 40},
    {"fid": 1, "event": "-", "packets": 9, "bytes": 3 * 1040 + 3 * 40 + 1040 + 1040 + 40},
    {"fid": 1, "event": "d", "packets": 1, "bytes": 40},
    {"fid": 1, "event": "r", "packets": 9, "bytes": 3 * 1040 + 3 * 40 + 1040 + 1040 + 40},
    {"fid": 2, "event": "+", "packets": 6, "bytes": 3000},
    {"fid": 2, "event": "-", "packets": 4, "bytes": 2000},
    {"fid": 2, "event": "d", "packets": 2, "bytes": 1000},
    {"fid": 2, "event": "r", "packets": 4, "bytes": 2000},
]


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "packets.tr"
    path.write_text(TRACE)
    return path


@pytest.fixture
def links(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps(META))
    return LinkTable.from_meta(tmp_path / "meta.json")


def parse(trace, links, **scan_options):
    ranges = scan_trace(trace, lambda: [LinkEventCollector(links)], **scan_options)
    events = LinkEvents.combine(c for (c,) in ranges)
    return build_journeys(events, links).to_pylist(), build_hops(events, links).to_pylist()


def assert_rows_equal(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.keys() == e.keys()
        for key, value in e.items():
            if isinstance(value, float):
                assert g[key] == pytest.approx(value, abs=1e-12), (key, g)
            else:
                assert g[key] == value, (key, g)


def test_journeys_match_hand_answers(trace, links):
    journeys, _ = parse(trace, links, workers=1)
    assert_rows_equal(journeys, EXPECTED_JOURNEYS)


def test_hops_match_hand_answers(trace, links):
    _, hops = parse(trace, links, workers=1)
    assert_rows_equal(hops, EXPECTED_HOPS)


def test_flow_sums_match_hand_answers(trace):
    got = flow_sums(trace, workers=1).to_pylist()
    assert got == EXPECTED_FLOW_SUMS
    assert sum(row["packets"] for row in got) == len(TRACE.splitlines())


@pytest.mark.parametrize(("workers", "block_size"), [(2, 1 << 20), (3, 256), (7, 128)])
def test_results_do_not_depend_on_ranges_or_blocks(trace, links, workers, block_size):
    """Rows straddling block or range boundaries are neither lost nor doubled."""
    assert parse(trace, links, workers=workers, block_size=block_size) == parse(trace, links, workers=1)
    assert flow_sums(trace, workers=workers, block_size=block_size).to_pylist() == EXPECTED_FLOW_SUMS


def test_line_aligned_ranges_cover_the_file_on_line_starts(trace):
    data = trace.read_bytes()
    for parts in (1, 2, 5, 13, 200):
        ranges = line_aligned_ranges(trace, parts)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a_end == b_start for (_, a_end), (b_start, _) in zip(ranges, ranges[1:], strict=False))
        assert all(data[start - 1 : start] == b"\n" for start, _ in ranges[1:])


def test_trace_columns_are_typed(trace):
    (batch,) = read_trace(trace)
    assert [str(t) for t in batch.schema.types] == [
        "fixed_size_binary[1]",
        "double",
        "int32",
        "int32",
        "string",
        "int32",
        "string",
        "int32",
        "string",
        "string",
        "int64",
        "int64",
    ]
    assert batch.num_rows == len(TRACE.splitlines())
    assert batch["flags"][31].as_py() == "C------" and batch["src"][0].as_py() == "2.0"


def test_reused_uid_is_an_error(tmp_path, links):
    path = tmp_path / "reused.tr"
    path.write_text("+ 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0\n+ 0.2 2 0 tcp 1040 ------- 1 2.0 3.0 1 0\n")
    with pytest.raises(ValueError, match="uid occurs twice"):
        parse(path, links, workers=1)


def test_empty_trace_gives_empty_typed_tables(tmp_path, links):
    path = tmp_path / "empty.tr"
    path.write_text("")
    assert parse(path, links) == ([], [])
    table = flow_sums(path)
    assert table.num_rows == 0 and table.column_names == ["fid", "event", "packets", "bytes"]


def test_malformed_line_is_reported(tmp_path):
    path = tmp_path / "bad.tr"
    path.write_text("+ 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0\nv 0.2 cwnd_ 3\n")
    with pytest.raises(ValueError, match=r"bad\.tr: line 2: expected 12 fields, got 4"):  # more: test_malformed.py
        flow_sums(path)


def test_delay_is_exit_minus_enter_exactly(trace, links):
    journeys, hops = parse(trace, links)
    for row in journeys:
        if row["t_exit"] is not None:
            assert row["delay"] == row["t_exit"] - row["t_enter"]
    assert all(math.isclose(h["queue_delay"], h["t_dequeue"] - h["t_enqueue"]) for h in hops if h["t_dequeue"])


def test_flow_sums_with_far_apart_fids(tmp_path):
    """fids 7 and 5,000,000 in one batch: too many (fid, event) codes for a dense count, same answer."""
    path = tmp_path / "sparse.tr"
    path.write_text(
        "+ 0.1 2 0 tcp 1040 ------- 7 2.0 3.0 0 0\n"
        "+ 0.2 2 0 tcp 40 ------- 5000000 2.0 3.0 0 1\n"
        "r 0.3 2 0 tcp 1040 ------- 7 2.0 3.0 0 0\n"
        "+ 0.4 2 0 tcp 1040 ------- 7 2.0 3.0 1 2\n"
    )
    assert flow_sums(path).to_pylist() == [
        {"fid": 7, "event": "+", "packets": 2, "bytes": 2080},
        {"fid": 7, "event": "r", "packets": 1, "bytes": 1040},
        {"fid": 5000000, "event": "+", "packets": 1, "bytes": 40},
    ]


def test_event_longer_than_one_character_is_an_error(tmp_path):
    path = tmp_path / "long_event.tr"
    path.write_text("++ 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0\n")
    with pytest.raises(ValueError, match=r"long_event\.tr: line 1: event: '\+\+' is not one character"):
        flow_sums(path)
