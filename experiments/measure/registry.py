"""The one list of metric names: every metric experiments/measure/ produces, with its scopes, unit, meaning and
what a run needs to have it, in the order of the families' modules (links, per_hop, e2e, tcp_flows, http_objects,
core_log, sinks, wireless; each says how its metrics are computed). Claims and figures are checked against it
before any run (experiments/references/check.py); `python -m experiments metrics` prints it as a Markdown table.
No pandas here: validating a file reads this list without the rest of the package.

Everything is measured over [warmup, duration] (the core_log metrics over [warmup, duration)). Percentiles
(_p<q>, _median) are pandas' Series.quantile with its default linear interpolation.
tests/experiments/test_metric_registry.py checks that a run gives exactly these metrics and scopes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from experiments.common.markdown import table as markdown_table

# Scopes a metric can have (the `scope` column of metrics.parquet).
LINK, ALL, GROUP, FLOW = "core<i>", "all", "group:<name>", "flow<fid>"


THROUGH = "through"  # the flows that enter at the first core router and leave at the last


# What a run must have for a metric to exist, as the experiment file says it.
PACKET_TRACE = "packet_trace"  # monitors.packet_trace true (the default) or text: tables hops and journeys
TEXT_TRACE = "text_trace"  # monitors.packet_trace text: ns-2's text trace, the only source of table flow_sums


TCP_FLOWS = "tcp_flows"  # a flow group of kind ftp: flows.tsv


HTTP_FLOWS = "http_flows"  # a flow group of kind http: objects.tsv


CORE_LOG = "core_log"  # monitors.core_log: core_bins.tsv, core_drops.tsv, core_delays.tsv


WIRELESS = "wireless"  # topology kind wireless: drops.tr


QUEUE_VARS = "queue_vars"  # monitors.queue_vars naming the variable: queue_vars.tsv


LOSS_MONITOR = "loss_monitor"  # a flow group whose sink is an Agent/LossMonitor: sinks.tsv, sink_gaps.tsv


NEEDS = {
    PACKET_TRACE: "the packet trace (`monitors.packet_trace` true, the default, or text)",
    TEXT_TRACE: "ns-2's text trace (`monitors.packet_trace: text`)",
    TCP_FLOWS: "TCP flows (a flow group of kind ftp: flows.tsv)",
    HTTP_FLOWS: "http flows (a flow group of kind http: objects.tsv)",
    CORE_LOG: "`monitors.core_log`",
    WIRELESS: "a wireless topology (drops.tr)",
    QUEUE_VARS: "`monitors.queue_vars` naming the variable",
    LOSS_MONITOR: "a UDP flow group whose sink is an Agent/LossMonitor (sinks.tsv, sink_gaps.tsv)",
}


# Causes of wireless_drops_<cause> (measure.wireless.drop_cause gives them).
WIRELESS_DROP_CAUSES = ("queue", "link_failure", "purge", "no_route", "arp", "random", "mac", "other")
RANDOM_LOSS_REASON = "LOSS"  # the reason of topology.loss's drop lines (layer LL, ns2-patches/0024)


# The families' parameters, here once: the names they give and what their modules compute.
CORE_VAR_WINDOWS_S = (100, 500, 1000)


HINT_LEVELS = range(1, 11)


OBJECT_DELAY_PERCENTILES = (70, 90, 95)


LOSS_RUN_LENGTHS = range(1, 11)


@dataclass(frozen=True)
class Metric:
    name: str  # the name, or its form with <placeholders> when `pattern` is set
    scopes: tuple[str, ...]
    unit: str
    description: str
    needs: tuple[str, ...] = ()
    pattern: str | None = None  # a regular expression every name of the family matches in full

    def matches(self, name: str) -> bool:
        return name == self.name if self.pattern is None else re.fullmatch(self.pattern, name) is not None


def _object_delays(prefix: str, ending: str) -> list[Metric]:
    """<prefix>_mean, _median and _p<q>: the delays of completed objects from their start `ending`."""
    return [
        Metric(f"{prefix}_mean", (ALL, GROUP), "s", f"mean time from a completed object's start {ending}", _HTTP),
        Metric(f"{prefix}_median", (ALL, GROUP), "s", "median of the same", _HTTP),
        Metric(
            f"{prefix}_p<q>",
            (ALL, GROUP),
            "s",
            f"q-th percentile of the same, q in {', '.join(map(str, OBJECT_DELAY_PERCENTILES))}",
            _HTTP,
            rf"{prefix}_p({'|'.join(map(str, OBJECT_DELAY_PERCENTILES))})",
        ),
    ]


def _goodput_family(suffix: str, meaning: str) -> list[Metric]:
    """goodput_Bps, goodput_per_flow_Bps and the two fairness indices with `suffix`, computed another way (`meaning`,
    with {name} the base metric)."""
    bases = (
        ("goodput_Bps", "bytes/s"),
        ("goodput_per_flow_Bps", "bytes/s"),
        ("fairness_jain", "1"),
        ("fairness_worst", "1"),
    )
    return [Metric(f"{name}{suffix}", (ALL, GROUP), unit, meaning.format(name=name), _TCP) for name, unit in bases]


def _link_metrics() -> list[Metric]:
    """Per monitored core link, from the queue monitor (and the per-hop trace for the delay)."""
    return [
        Metric("utilization_pct", (LINK,), "%", "bytes departed x 8 / (seconds x link bandwidth) x 100"),
        Metric(
            "idle_max_s",
            (LINK,),
            "s",
            "longest time without a departure, as the queue monitor's samples in the window show it: the largest gap "
            "between consecutive bounds, the bounds being the window's first sample, every sample whose "
            "departures_packets differs from the previous sample's and the window's last sample (departures in "
            "every sampling interval: the longest sampling interval; none in the window: its first to last sample; "
            "a stretch begun in the warm-up counts from the window's first sample, one still open at the end up "
            "to its last); within one sampling interval of the true longest gap between departures",
        ),
        Metric("drop_pct", (LINK,), "%", "packets dropped / packets arrived x 100"),
        Metric("queue_bytes_mean", (LINK,), "bytes", "mean of the sampled queue length"),
        Metric("queue_pkts_mean", (LINK,), "packets", "mean of the sampled queue length"),
        Metric("queue_pkts_std", (LINK,), "packets", "population standard deviation (ddof 0) of the sampled queue"),
        Metric("queue_pkts_var", (LINK,), "packets^2", "population variance (ddof 0) of the sampled queue"),
        Metric("queue_pkts_max", (LINK,), "packets", "largest sampled queue length"),
        Metric("queue_pkts_p5", (LINK,), "packets", "5th percentile of the sampled queue length"),
        Metric("queue_pkts_p95", (LINK,), "packets", "95th percentile of the sampled queue length"),
        Metric("queue_pkts_min", (LINK,), "packets", "smallest sampled queue length"),
        Metric("queue_empty_pct", (LINK,), "%", "samples with an empty queue (0 packets) / samples x 100"),
        Metric(
            "queue_pkts_in_<a>_<b>_pct",
            (LINK,),
            "%",
            "samples with a < queue length <= b packets / samples x 100, for each [a, b] in the experiment's "
            "queue_ranges",
            (),
            r"queue_pkts_in_(\d+)_(\d+)_pct",
        ),
        Metric(
            "queue_osc_hz",
            (LINK,),
            "1/s",
            "upward crossings of the mean queue length (a sample below queue_pkts_mean followed by one at or "
            "above it) per second between the window's first and last sample",
        ),
        Metric(
            "queue_delay_ms_mean",
            (LINK,),
            "ms",
            "mean time from enqueue to dequeue of the packets not dropped",
            (PACKET_TRACE,),
        ),
        Metric(
            "qvar_<name>_mean",
            (LINK,),
            "as the variable",
            "mean over the window of a variable of core0's queue sampled per monitors.queue_vars (ave_ -> "
            "qvar_ave_mean, cur_max_p_ -> qvar_cur_max_p_mean)",
            (QUEUE_VARS,),
            r"qvar_([A-Za-z0-9_]+)_mean",
        ),
        Metric(
            "queue_ave_settle_<level>_s@<t0>",
            (LINK,),
            "s",
            "seconds from t0 until the sampled RED average (ave_) is back at or below level after rising above "
            "it (0: never above it after t0; the run's end - t0 when it never comes back), for each [t0, level] "
            "in the experiment's settle",
            (QUEUE_VARS,),
            r"queue_ave_settle_(\d+(?:\.\d+)?)_s@(\d+(?:\.\d+)?)",
        ),
        *_curve_metrics(),
    ]


def _curve_metrics() -> list[Metric]:
    """Koo et al. §2.3's per-node measures, exact from the per-hop trace (experiments/measure/curves.py)."""
    trace = (PACKET_TRACE,)
    return [
        Metric("node_queue_bytes_avg", (LINK,), "bytes", "time average of Q(t) = R_in(t) - R_out(t) (Eq. 4)", trace),
        Metric(
            "node_delay_ms_avg",
            (LINK,),
            "ms",
            "time average of D(t) (Eqs. 5-6): the age of the oldest packet not yet fully transmitted, 0 when none",
            trace,
        ),
        Metric("node_delay_ms_max", (LINK,), "ms", "largest D(t)", trace),
        Metric(
            "node_loss_pct_avg",
            (LINK,),
            "%",
            "time average over the busy time of P(t) (Eq. 7): bytes dropped / bytes arrived since the current "
            "busy period began x 100",
            trace,
        ),
        Metric("node_busy_pct", (LINK,), "%", "time with Q(t) > 0 / window x 100", trace),
        Metric(
            "queue_above_<b>B_pct",
            (LINK,),
            "%",
            "time with Q(t) > b bytes / window x 100, for each b in the experiment's queue_thresholds",
            trace,
            r"queue_above_(\d+)B_pct",
        ),
    ]


def _bottleneck_copies(link_metrics: list[Metric]) -> list[Metric]:
    """The first core link (core0, where every flow enters the core) again, as bottleneck_<metric> of scope all."""
    return [
        Metric(
            f"bottleneck_{m.name}",
            (ALL,),
            m.unit,
            f"{m.name} of core0: {m.description}",
            m.needs,
            m.pattern and f"bottleneck_{m.pattern}",
        )
        for m in link_metrics
    ]


_E2E = (PACKET_TRACE,)


_E2E_NOTE = "data packets from entry link to exit link (a TCP connection's header-only SYN is not data)"


_LOSS_RUN = (
    "A run: a maximal sequence of one flow's consecutive data packets (entry order, retransmissions included) all "
    "dropped anywhere on its path, other flows' packets in between not cutting it; runs of all the scope's flows "
    "pooled. A run counts whole when its first packet entered in [warmup, duration) and a delivered packet of the "
    "flow ends it: one begun in the warm-up does not count, nor one the run's end leaves open"
)


_TCP = (TCP_FLOWS,)


_HTTP = (HTTP_FLOWS,)


_CORE = (CORE_LOG,)


_WINDOW_ENDS = "between the flows.tsv samples nearest warmup and duration"


_E2E_SCOPES = (ALL, THROUGH, GROUP, FLOW)


_MULTI = (ALL, THROUGH, GROUP)


_OTHER_METRICS = [
    Metric(
        "e2e_delay_ms_mean", _E2E_SCOPES, "ms", f"mean end-to-end delay of every delivered packet; {_E2E_NOTE}", _E2E
    ),
    Metric("e2e_delay_ms_std", _E2E_SCOPES, "ms", "population standard deviation of the same delays", _E2E),
    Metric(
        "e2e_loss_pct_mean",
        _E2E_SCOPES,
        "%",
        "mean over the 1-s bins of entry time of each bin's dropped / (dropped + delivered) x 100; packets "
        "still in flight at the end are neither",
        _E2E,
    ),
    Metric("e2e_loss_pct_std", _E2E_SCOPES, "%", "population standard deviation of the same per-bin loss", _E2E),
    Metric(
        "e2e_loss_marked_pct_mean",
        _E2E_SCOPES,
        "%",
        "as e2e_loss_pct_mean with a delivered packet that arrived CE-marked counted as lost",
        _E2E,
    ),
    Metric("e2e_loss_marked_pct_std", _E2E_SCOPES, "%", "population standard deviation of the same per-bin loss", _E2E),
    Metric(
        "e2e_delay_ms_flow_mean", _MULTI, "ms", "mean over the scope's flows of each flow's e2e_delay_ms_mean", _E2E
    ),
    Metric(
        "e2e_delay_ms_flow_std",
        _MULTI,
        "ms",
        "population standard deviation across the scope's flows of each flow's e2e_delay_ms_mean",
        _E2E,
    ),
    Metric(
        "e2e_loss_pct_flow_mean",
        _MULTI,
        "%",
        "mean over the scope's flows of each flow's dropped / (dropped + delivered) x 100 over the window",
        _E2E,
    ),
    Metric("e2e_loss_pct_flow_std", _MULTI, "%", "population standard deviation across the flows of the same", _E2E),
    Metric("e2e_packets", _E2E_SCOPES, "packets", "data packets counted (dropped or delivered)", _E2E),
    Metric(
        "e2e_loss_run_<k>_pct",
        _E2E_SCOPES,
        "%",
        f"k = {LOSS_RUN_LENGTHS[0]}..{LOSS_RUN_LENGTHS[-1]}: per-flow loss runs of exactly k packets / the "
        f"scope's runs x 100 (nan without a run). {_LOSS_RUN}",
        _E2E,
        rf"e2e_loss_run_({'|'.join(map(str, LOSS_RUN_LENGTHS))})_pct",
    ),
    Metric("e2e_loss_run_mean", _E2E_SCOPES, "packets", "mean length of the same runs (nan without a run)", _E2E),
    Metric(
        "e2e_bound_excess_pct",
        _E2E_SCOPES,
        "%",
        "Koo et al. §5.2's bound, per 1-s bin of exit time: (flow, bin) pairs whose mean delay of the packets "
        "delivered in the bin exceeds n x D_avg + propagation / pairs x 100; n = core routers the flow crosses, "
        "D_avg = the largest node_delay_ms_avg (Eq. 6, tau = the bin) of the core links on its path, "
        "propagation = its links' delays",
        _E2E,
    ),
    Metric(
        "e2e_bound_excess_pkt_pct",
        _E2E_SCOPES,
        "%",
        "the same bound per delivered packet: packets whose delay exceeds n x D_avg + propagation, D_avg over "
        "the 1 s before the packet's exit / packets x 100",
        _E2E,
    ),
    Metric(
        "goodput_Bps",
        (FLOW, ALL, GROUP),
        "bytes/s",
        f"payload bytes delivered in order {_WINDOW_ENDS} / the seconds between them; all and groups: the "
        "sum over their flows (system goodput)",
        _TCP,
    ),
    Metric("cwnd_mean", (FLOW,), "packets", "mean sampled cwnd_ over the window", _TCP),
    Metric("retransmits", (FLOW,), "packets", f"packets retransmitted {_WINDOW_ENDS}", _TCP),
    Metric(
        "cwnd_epochs_per_s",
        (FLOW, ALL, GROUP),
        "1/s",
        "congestion epochs per second: decreases of the sampled cwnd_ between consecutive flows.tsv samples of "
        "the window / its seconds; all and groups: the mean over their flows",
        _TCP,
    ),
    Metric("goodput_per_flow_Bps", (ALL, GROUP), "bytes/s", "mean of the flows' goodput_Bps", _TCP),
    Metric("fairness_jain", (ALL, GROUP), "1", "Jain's index of the flows' goodputs, (sum x)^2 / (n sum x^2)", _TCP),
    Metric("fairness_worst", (ALL, GROUP), "1", "worst-case fairness of the flows' goodputs, min x / max x", _TCP),
    Metric("goodput_share_pct", (GROUP,), "%", "the group's goodput_Bps / all's x 100 (nan if all's is 0)", _TCP),
    *_goodput_family(
        "_connection",
        "{name} over the whole connection time: between the flows.tsv samples nearest 0 and duration (warm-up and "
        "slow start included)",
    ),
    *_goodput_family(
        "_since_start",
        "{name} with each flow's goodput from its own start: bytes delivered by the flows.tsv sample nearest "
        "duration / (that time - the flow's start)",
    ),
    *_goodput_family(
        "_since_start_delivering",
        "{name}_since_start over the flows that delivered at least one byte by the end (those between partitioned "
        "nodes left out)",
    ),
    Metric(
        "delivering_flows_pct",
        (ALL, GROUP),
        "%",
        "flows that delivered at least one payload byte by the flows.tsv sample nearest duration / all flows x 100",
        _TCP,
    ),
    Metric(
        "objects_completed",
        (ALL, GROUP),
        "objects",
        "http objects whose last byte was acknowledged within [warmup, duration]",
        _HTTP,
    ),
    Metric("objects_per_s", (ALL, GROUP), "objects/s", "objects_completed / seconds of the window", _HTTP),
    *_object_delays("object_delay_s", "to its last acknowledgement"),
    *_object_delays(
        "object_delay_client_s",
        "to when the client had all of it (objects.tsv's delivered: server "
        "to client, as the PISA/PIMC thesis measures object delay)",
    ),
    Metric(
        "object_cycle_s",
        (ALL, GROUP),
        "s",
        "flow-seconds per completed object: the scope's http flows x window seconds / objects_completed "
        "(delay, idle gap and set-up together)",
        _HTTP,
    ),
    Metric("objects_unfinished", (ALL, GROUP), "objects", "objects still in progress when the run ended", _HTTP),
    Metric("objects_share_pct", (GROUP,), "%", "the group's objects_completed / all's x 100 (nan if none)", _HTTP),
    Metric(
        "core_arrivals_per_s",
        (ALL, GROUP),
        "packets/s",
        "packets arriving at core0's queue / window seconds (core_bins)",
        _CORE,
    ),
    Metric("core_drops_per_s", (ALL, GROUP), "packets/s", "packets dropped at core0 / window seconds", _CORE),
    Metric("core_drop_ratio_pct", (ALL, GROUP), "%", "drops / arrivals at core0 x 100 (nan without arrivals)", _CORE),
    Metric(
        "core_cwnd_hint_mean",
        (ALL, GROUP),
        "packets",
        "mean cwnd hint of the packets arriving at core0 that carry one (hint > 0)",
        _CORE,
    ),
    Metric(
        "core_utilization",
        (ALL, GROUP),
        "fraction",
        "bytes departed at core0's far end x 8 / (core link bandwidth x window seconds); groups add up to all",
        _CORE,
    ),
    Metric(
        "core_departed_bytes",
        (ALL, GROUP),
        "bytes",
        "bytes departed at core0's far end over the window (headers, retransmissions and SYNs included)",
        _CORE,
    ),
    Metric(
        "object_wire_bytes",
        (ALL, GROUP),
        "bytes",
        "core_departed_bytes / objects_completed of the same scope: bytes on the wire per completed object, "
        "retransmissions, headers, SYNs and objects unfinished at the window's ends included",
        (*_CORE, *_HTTP),
    ),
    Metric(
        "core_drops_per_object",
        (ALL, GROUP),
        "packets",
        "core_drops_per_s / objects_per_s of the same scope: drops at core0 per completed object (claim kind "
        "slope: object time saved per avoided drop between two AQMs)",
        (*_CORE, *_HTTP),
    ),
    Metric(
        "core_drops_per_s_var",
        (ALL, GROUP),
        "(packets/s)^2",
        "sample variance (ddof 1) of the per-bin drop rate over the window's bins, a bin without drops as 0",
        _CORE,
    ),
    Metric(
        "core_drops_per_s_var@<a>-<b>",
        (ALL, GROUP),
        "(packets/s)^2",
        "the same over the bins starting in [a, b), for every aligned window of L = "
        f"{', '.join(map(str, CORE_VAR_WINDOWS_S))} s from time 0 (a = k x L, b = a + L <= duration), "
        "whatever the warm-up",
        _CORE,
        r"core_drops_per_s_var@(\d+)-(\d+)",
    ),
    Metric(
        "core_drop_qlen_mean", (ALL, GROUP), "packets", "mean queue length the arrivals dropped at core0 found", _CORE
    ),
    Metric("core_drop_qlen_p95", (ALL, GROUP), "packets", "95th percentile of the same", _CORE),
    Metric("core_drop_qlen_max", (ALL, GROUP), "packets", "largest of the same", _CORE),
    Metric(
        "core_drop_hint_mean", (ALL, GROUP), "packets", "mean cwnd hint of the dropped packets that carry one", _CORE
    ),
    Metric("core_drop_hint_min", (ALL, GROUP), "packets", "smallest of the same", _CORE),
    Metric(
        "core_drop_hint_le<k>_pct",
        (ALL, GROUP),
        "%",
        f"k = {HINT_LEVELS[0]}..{HINT_LEVELS[-1]}: dropped packets with a hint <= k / those with a hint x 100 "
        "(nan when none carried one)",
        _CORE,
        rf"core_drop_hint_le({'|'.join(map(str, HINT_LEVELS))})_pct",
    ),
    Metric(
        "core_delay_s_mean",
        (ALL, GROUP, FLOW),
        "s",
        "mean time from creation at the source agent to departure at core0's far end, over the TCP data "
        "packets of the first flow of each group",
        _CORE,
    ),
    Metric("core_delay_s_p90", (ALL, GROUP, FLOW), "s", "90th percentile of the same", _CORE),
    Metric("core_delay_s_p99", (ALL, GROUP, FLOW), "s", "99th percentile of the same", _CORE),
    Metric(
        "sink_loss_pct",
        (ALL, GROUP, FLOW),
        "%",
        "packets a LossMonitor sink never received / packets sent, over the sequence numbers whose fate is known "
        "from the sink's expected_ at the warm-up sample to its expected_ at the end",
        (LOSS_MONITOR,),
    ),
    Metric(
        "sink_goodput_Bps",
        (ALL, GROUP, FLOW),
        "B/s",
        "bytes the LossMonitor sinks received from the warm-up sample to the end / (duration - warmup), summed "
        "over the scope's flows",
        (LOSS_MONITOR,),
    ),
    Metric(
        "sink_loss_run_<k>_pct",
        (ALL, GROUP, FLOW),
        "%",
        f"k = {LOSS_RUN_LENGTHS[0]}..{LOSS_RUN_LENGTHS[-1]}: the sinks' loss runs (gaps in the sequence numbers, "
        "from the warm-up on) of length k / all of them x 100 (nan without a run)",
        (LOSS_MONITOR,),
        rf"sink_loss_run_({'|'.join(map(str, LOSS_RUN_LENGTHS))})_pct",
    ),
    Metric(
        "sink_loss_run_mean",
        (ALL, GROUP, FLOW),
        "packets",
        "mean length of the same runs (nan without a run)",
        (LOSS_MONITOR,),
    ),
    Metric(
        "fec_plrbc_<k>_<h>_pct",
        (ALL, GROUP, FLOW),
        "%",
        "for each [k, h] of the experiment's fec_blocks, over the blocks of k + h sequence numbers whose fate is "
        "known: lost packets / (blocks x (k + h)) x 100, the loss before correction (PLRBC, Alemu §5.3.2)",
        (LOSS_MONITOR,),
        r"fec_plrbc_(\d+)_(\d+)_pct",
    ),
    Metric(
        "fec_plr_<k>_<h>_pct",
        (ALL, GROUP, FLOW),
        "%",
        "the same blocks after correction (PLR): the lost packets of the blocks with more than h losses / "
        "(blocks x (k + h)) x 100",
        (LOSS_MONITOR,),
        r"fec_plr_(\d+)_(\d+)_pct",
    ),
    Metric(
        "fec_plr_data_<k>_<h>_pct",
        (ALL, GROUP, FLOW),
        "%",
        "the same counting only lost data packets (a block's first k) of the unrepaired blocks / (blocks x k) x "
        "100: what the application misses",
        (LOSS_MONITOR,),
        r"fec_plr_data_(\d+)_(\d+)_pct",
    ),
    Metric(
        "fec_blocks_<k>_<h>",
        (ALL, GROUP, FLOW),
        "blocks",
        "blocks counted by the three metrics above",
        (LOSS_MONITOR,),
        r"fec_blocks_(\d+)_(\d+)",
    ),
    Metric(
        "wireless_drops_<cause>",
        (ALL,),
        "packets",
        "TCP data packets (drops.tr type tcp) the nodes dropped within [warmup, duration], by the cause ns-2's CMU "
        "trace names: queue (an interface queue full: IFQ ---), link_failure (the MAC gave up on the next hop: RTR "
        "CBK), purge (pulled out of an interface queue after a link broke: RTR FIL, ns2-patches/0023), no_route "
        "(RTR NRTE; TOUT and IFQ: expired in or refused by the routing agent's buffer while it sought a route), "
        "arp (ARP's one-packet buffer), random (topology.loss, above the MAC), mac (the MAC layer's own lines, "
        "traced only with its tracing on), other (TTL, loop, ...)",
        (WIRELESS,),
        rf"wireless_drops_({'|'.join(WIRELESS_DROP_CAUSES)})",
    ),
    Metric(
        "wireless_drops_queue_pct",
        (ALL,),
        "%",
        "wireless_drops_queue / all TCP data drops x 100 (nan without drops): the share of losses a congested "
        "queue caused, against route breaks and the radio",
        (WIRELESS,),
    ),
    Metric(
        "tcp_timeouts_per_flow",
        (ALL,),
        "timeouts",
        "retransmission timeouts with data outstanding per connection (ns-2's nrexmit_), over the whole run",
        _TCP,
    ),
    Metric(
        "tcp_fast_retransmits_per_flow",
        (ALL,),
        "retransmits",
        "retransmissions triggered by duplicate ACKs per connection (nfastrexmit_, ns2-patches/0022), over the "
        "whole run",
        _TCP,
    ),
    Metric(
        "tcp_timeout_pct",
        (ALL,),
        "%",
        "timeouts / (timeouts + fast retransmits) x 100 over all connections (nan with neither): the share of "
        "loss recoveries a mechanism acting at fast retransmit never sees",
        _TCP,
    ),
    *(
        Metric(
            f"bqm_{name}_per_flow",
            (ALL,),
            "responses",
            f"{meaning} per BQM sender (ns2-patches/0011), over the whole run; only where a connection's sender is "
            "Agent/TCP/Newreno/BQM",
            _TCP,
        )
        for name, meaning in (
            ("congestion_responses", "fast retransmits answered with Table 3.1's decrease for a congestion diagnosis"),
            ("wireless_responses", "fast retransmits answered with the wireless decrease for a wireless diagnosis"),
            ("early_retransmits", "fast retransmits after one duplicate ACK for a level-0 packet (early_rexmit_)"),
        )
    ),
    Metric(
        "bqm_response_pct",
        (ALL,),
        "%",
        "the BQM senders' congestion and wireless responses / their fast retransmits x 100 (nan without fast "
        "retransmits): how often the receiver's diagnosis reached the sender when it could act on it (the rest: "
        "NewReno's halving)",
        _TCP,
    ),
    Metric(
        "bqm_wireless_response_pct",
        (ALL,),
        "%",
        "wireless responses / all responses of the BQM senders x 100 (nan without responses)",
        _TCP,
    ),
]


METRICS: tuple[Metric, ...] = (*_link_metrics(), *_bottleneck_copies(_link_metrics()), *_OTHER_METRICS)


# The families whose measured value is never 0: Jain's index is at least 1/n, a delay holds a propagation and a
# transmission, and idle_max_s is at least one sampling interval (a dead link gives the whole window, not 0). Any
# other metric can be 0 (a share, a rate, a count, a queue), including on a dead link, so a value claim whose pass
# band holds 0 would pass a run where nothing happened (references.check refuses it unless the claim says, in
# `zero_passes`, why a 0 agrees with the paper).
NEVER_ZERO = (
    "idle_max_s",
    "fairness_jain",
    "fairness_jain_connection",
    "fairness_jain_since_start",
    "fairness_jain_since_start_delivering",
    "e2e_delay_ms_mean",
    "e2e_delay_ms_flow_mean",
    "object_delay_s_mean",
    "object_delay_s_median",
    "object_delay_s_p<q>",
    "object_delay_client_s_mean",
    "object_delay_client_s_median",
    "object_delay_client_s_p<q>",
    "object_cycle_s",
    "core_delay_s_mean",
    "core_delay_s_p90",
    "core_delay_s_p99",
)


def can_be_zero(name: str) -> bool:
    """Whether a metric's measured value can be 0 (NEVER_ZERO)."""
    entry = lookup(name)
    return entry is None or entry.name.removeprefix("bottleneck_") not in NEVER_ZERO


def lookup(name: str) -> Metric | None:
    """The registry entry a metric name belongs to (a pattern's family included), or None."""
    return next((metric for metric in METRICS if metric.matches(name)), None)


def names() -> list[str]:
    """Every entry's name as listed (patterned families with their <placeholders>)."""
    return [metric.name for metric in METRICS]


def scope_kind(scope: str) -> str | None:
    """The registry scope a concrete scope belongs to: core0 -> core<i>, group:ftp -> group:<name>, ..."""
    if scope in (ALL, THROUGH):
        return scope
    if scope.startswith("group:"):
        return GROUP
    for kind, regex in ((FLOW, r"flow\d+"), (LINK, r"core\d+")):
        if re.fullmatch(regex, scope):
            return kind
    return None


def markdown() -> str:
    """The registry as a markdown table (`python -m experiments metrics`)."""
    rows = [
        [f"`{m.name}`", ", ".join(f"`{scope}`" for scope in m.scopes), m.unit, ", ".join(m.needs) or "-", m.description]
        for m in METRICS
    ]
    lines = markdown_table(["metric", "scopes", "unit", "needs", "what"], rows)
    legend = "; ".join(f"`{key}`: {text}" for key, text in NEEDS.items())
    return "\n".join([*lines, "", f"Needs: {legend}. Scope `core<i>` is the core link Ci -> Ci+1."]) + "\n"
