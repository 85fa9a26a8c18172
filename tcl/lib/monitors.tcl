# Outputs of the simulation: packets.log (DESIGN.md §4), the packet events the
# metrics read, from PacketLogs on every recorded link (monitors.packet_trace true,
# the default), or packets.tr through trace-queue (packet_trace text), queue_monitor.tsv
# (§5) sampled from a QueueMonitor on every core link, flows.tsv: each TCP
# flow's sender state at the same ticks, and with monitors.core_log the files
# of §5.4 from three HintMonitors (ns2-patches/0007) on the first core link;
# with monitors.queue_vars, queue_vars.tsv (§5.5): variables of the first core
# link's queue object at the same ticks; for flows whose sink is an
# Agent/LossMonitor, sinks.tsv (its counters at flows.tsv's ticks) and
# sink_gaps.tsv (a line per gap in the packets' sequence numbers); with
# flows.tsv, tcp_counters.tsv: each of its flows' recovery counters at the end.

namespace eval repro {
    variable monitors {}   ;# {link name, QueueMonitor} pairs, core0 first
    variable packet_logs {}  ;# the PacketLogs writing packets.log, if any
    variable FLOW_COLUMNS {time fid delivered_bytes cwnd ssthresh retransmits}
    variable core_log {}   ;# event -> HintMonitor on core0 (arrival, departure, drop)
    variable core_log_files {}   ;# name -> channel of the core_log files
    variable queue_vars {}     ;# {channel, variable names} of queue_vars.tsv, or empty
    variable flow_every 1      ;# flows.tsv gets every flow_every-th sample (and the last)
    variable sinks_tsv ""      ;# the channel of sinks.tsv, or empty
    variable sampled_tcp {}    ;# {fid, agent} of each TCP flow, for flows.tsv
    variable sampled_sinks {}  ;# {fid, LossMonitor} of each such sink, for sinks.tsv
    variable counters_tsv ""   ;# the channel of tcp_counters.tsv, or empty
    variable COUNTER_COLUMNS {fid timeouts fast_retransmits retransmitted_packets
                              congestion_responses wireless_responses early_retransmits}
    variable BQM_SENDER Agent/TCP/Newreno/BQM
}

# monitors.flow_sample_interval: flows.tsv every k-th queue sample, k a whole number.
proc repro::set_flow_sample_interval {flow_interval interval} {
    variable flow_every
    set k [expr {round($flow_interval / $interval)}]
    if {$k < 1 || abs($k * $interval - $flow_interval) > 1e-9} {
        fail monitors.flow_sample_interval "$flow_interval s is not a whole multiple of queue_sample_interval ($interval s)" \
            "k x $interval for a whole k >= 1"
    }
    set flow_every $k
}

# Each name must be a variable core0's queue binds (a typo would otherwise
# surface only as an error at the first sample, mid-run).
proc repro::check_queue_vars {names} {
    variable core_queue
    foreach name $names {
        if {![regexp {^[A-Za-z_][A-Za-z0-9_]*$} $name] || [catch {$core_queue set $name}]} {
            fail monitors.queue_vars "[$core_queue info class] has no variable \"$name\"" \
                "variables the queue binds (e.g. RED's ave_, cur_max_p_; see meta.json's core queue knobs)"
        }
    }
}

proc repro::start_queue_vars {channel names} {
    variable queue_vars
    puts $channel [join {time var value} "\t"]
    set queue_vars [list $channel $names]
}

# trace: the channel of packets.tr, or ""; packet_log: the path of packets.log, or "".
proc repro::install_monitors {ns trace packet_log} {
    variable links
    variable monitors
    set index 0
    foreach link $links {
        set from [dict get $link from]
        set to [dict get $link to]
        if {$trace ne ""} {
            $ns trace-queue $from $to $trace
        }
        if {$packet_log ne ""} {
            install_packet_log [$ns link $from $to] $index [dict get $link role] $packet_log
        }
        incr index
        if {[dict get $link monitored]} {
            lappend monitors [list [dict get $link name] [$ns monitor-queue $from $to ""]]
        }
    }
}

# packets.log (ns2-patches/0019): PacketLogs where SimpleLink::trace puts its
# Trace objects, only for the events the parsers read (parsers/packet_log.py):
# enqueues on entry and core links, dequeues on core links, receives on exit
# links, drops on every link. `index`: the link's place in meta.json's links.
proc repro::install_packet_log {link index role path} {
    variable packet_logs
    set events [dict get {entry {+ d} core {+ - d} exit {r d}} $role]
    foreach event $events {
        set log [new PacketLog]
        $log file $path
        $log event $event
        $log link $index
        lappend packet_logs $log
        switch -- $event {
            + { $link add-to-head $log }
            - {
                set queue [$link queue]
                $log target [$queue target]
                $queue target $log
            }
            r {
                set ttl [$link set ttl_]
                $log target [$ttl target]
                $ttl target $log
            }
            d {
                set drophead [$link set drophead_]
                $log target [$drophead target]
                $drophead target $log
            }
        }
    }
}

proc repro::close_packet_log {} {
    variable packet_logs
    if {[llength $packet_logs]} {
        [lindex $packet_logs 0] close
    }
}

# One sample every `interval` seconds from 0 to duration inclusive, each
# sample scheduling the next; the last one schedules the end of the run at
# duration, after itself (ns-2 runs events of equal time in the order they
# were scheduled). Times are i * interval rounded to the nanosecond, so that
# 700 * 0.1 is 70, not 70.00000000000001.
# flows_tsv: the channel of flows.tsv, or "" when the run has no TCP flows.
proc repro::start_samples {ns tsv flows_tsv interval duration} {
    variable FLOW_COLUMNS
    variable sampled_tcp
    variable sampled_sinks
    # The flows are fixed by now: found once, not at every sample.
    foreach flow [tcp_flows] {
        lappend sampled_tcp [list [dict get $flow fid] [dict get $flow agent]]
    }
    foreach flow [loss_monitor_flows] {
        lappend sampled_sinks [list [dict get $flow fid] [dict get $flow sink]]
    }
    puts $tsv [join {time link size_bytes size_packets arrivals_packets arrivals_bytes
                     departures_packets departures_bytes drops_packets drops_bytes} "\t"]
    if {$flows_tsv ne ""} {
        puts $flows_tsv [join $FLOW_COLUMNS "\t"]
    }
    $ns at 0.0 [list repro::sample $ns $tsv $flows_tsv $interval $duration 0]
}

proc repro::tcp_flows {} {
    variable flows
    set result {}
    foreach flow $flows {
        if {[dict get $flow kind] eq "ftp"} {
            lappend result $flow
        }
    }
    return $result
}

# Flows whose sink is an Agent/LossMonitor: stock ns-2's sink that counts the
# RTP sequence numbers UDP agents stamp (0, 1, 2, ...).
proc repro::loss_monitor_flows {} {
    variable flows
    set result {}
    foreach flow $flows {
        set cls [[dict get $flow sink] info class]
        if {$cls eq "Agent/LossMonitor" || "Agent/LossMonitor" in [$cls info heritage]} {
            lappend result $flow
        }
    }
    return $result
}

# sinks.tsv: each LossMonitor's counters at flows.tsv's ticks (packets and bytes
# received, expected_ = the sequence number after the highest received).
# sink_gaps.tsv: a line per gap (time of the packet after it, fid, first missing
# sequence number, how many are missing), written by the sink's log-loss, which
# ns-2 calls after adding the gap to nlost_ and before moving expected_ past it.
proc repro::start_loss_monitors {sinks gaps} {
    variable sinks_tsv
    set sinks_tsv $sinks
    puts $sinks [join {time fid packets bytes expected} "\t"]
    puts $gaps [join {time fid first count} "\t"]
    foreach flow [loss_monitor_flows] {
        set sink [dict get $flow sink]
        $sink set repro_fid_ [dict get $flow fid]
        $sink set repro_lost_ 0
        $sink set repro_gaps_ $gaps
        $sink proc log-loss {} {
            $self instvar nlost_ expected_ repro_fid_ repro_lost_ repro_gaps_
            set now [format %.6f [[Simulator instance] now]]
            puts $repro_gaps_ [join [list $now $repro_fid_ $expected_ [expr {$nlost_ - $repro_lost_}]] "\t"]
            set repro_lost_ $nlost_
        }
    }
}

# A sample's rows read the objects' bound variables through `instvar`, which links
# them once per object and sample; `$obj set` on each went through OTcl's method
# dispatch once per counter, most of a sample's cost on a run with many flows
# (docs/PERFORMANCE.md, "A run's start-up"). The strings read are the same.
proc repro::sample {ns tsv flows_tsv interval duration i} {
    variable monitors
    variable queue_vars
    variable flow_every
    variable sampled_tcp
    variable sampled_sinks
    variable sinks_tsv
    set now [format %.6f [$ns now]]
    set next [expr {round(($i + 1) * $interval * 1e9) / 1e9}]
    set flow_tick [expr {$i % $flow_every == 0 || $next > $duration}]
    if {$flows_tsv ne "" && $flow_tick} {
        foreach pair $sampled_tcp {
            puts $flows_tsv [tcp_row $now {*}$pair]
        }
    }
    if {$sinks_tsv ne "" && $flow_tick} {
        foreach pair $sampled_sinks {
            puts $sinks_tsv [sink_row $now {*}$pair]
        }
    }
    if {[llength $queue_vars]} {
        variable core_queue
        lassign $queue_vars channel names
        foreach name $names {
            puts $channel [join [list $now $name [$core_queue set $name]] "\t"]
        }
    }
    foreach pair $monitors {
        puts $tsv [queue_row $now {*}$pair]
    }
    incr i
    if {$next <= $duration} {
        $ns at $next [list repro::sample $ns $tsv $flows_tsv $interval $duration $i]
    } else {
        $ns at $duration [list repro::end_run $ns]
    }
}

# ack_ is the highest in-order packet the receiver acknowledged (-1: none).
proc repro::tcp_row {now fid tcp} {
    $tcp instvar ack_ packetSize_ cwnd_ ssthresh_ nrexmitpack_
    join [list $now $fid [expr {($ack_ + 1) * $packetSize_}] $cwnd_ $ssthresh_ $nrexmitpack_] "\t"
}

proc repro::sink_row {now fid sink} {
    $sink instvar npkts_ bytes_ expected_
    join [list $now $fid $npkts_ $bytes_ $expected_] "\t"
}

proc repro::queue_row {now name qmon} {
    $qmon instvar size_ pkts_ parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_
    join [list $now $name $size_ $pkts_ $parrivals_ $barrivals_ $pdepartures_ $bdepartures_ $pdrops_ $bdrops_] "\t"
}

# core_log (DESIGN.md §5.4): HintMonitors on the first core link counting the
# packets of each flow per `interval` seconds as they arrive at its queue
# (after the link's head), leave the link at its far end (after its delay
# element) and are dropped (in its drop chain, after drophead_); drops and,
# for the first flow of each flow group, departures are also logged per packet.
proc repro::install_core_log {ns run_dir interval} {
    variable core
    variable core_log
    variable core_log_files
    set link [$ns link [lindex $core 0] [lindex $core 1]]
    foreach name {core_bins core_drops core_delays} {
        dict set core_log_files $name [open [file join $run_dir $name.tsv] w]
    }
    foreach event {arrival departure drop} {
        set m [new HintMonitor]
        $m set interval_ $interval
        dict set core_log $event $m
    }
    puts [dict get $core_log_files core_bins] [join {bin event fid packets bytes hint_sum hinted} "\t"]
    puts [dict get $core_log_files core_drops] [join {time fid seqno size hint qlen} "\t"]
    puts [dict get $core_log_files core_delays] [join {time fid seqno delay} "\t"]

    $link add-to-head [dict get $core_log arrival]
    set departures [dict get $core_log departure]
    set delay [$link link]
    $departures target [$delay target]
    $delay target $departures
    $departures log-delays [dict get $core_log_files core_delays] [first_flow_of_each_group]
    set drops [dict get $core_log drop]
    set drophead [$link set drophead_]
    $drops target [$drophead target]
    $drophead target $drops
    $drops queue [$link queue]
    $drops log-drops [dict get $core_log_files core_drops]
}

proc repro::first_flow_of_each_group {} {
    variable flows
    set first {}
    foreach flow $flows {
        if {![dict exists $first [dict get $flow group]]} {
            dict set first [dict get $flow group] [dict get $flow fid]
        }
    }
    return [dict values $first]
}

proc repro::core_log_channels {} {
    variable core_log_files
    return [dict values $core_log_files]
}

# tcp_counters.tsv, written with flows.tsv (the same flows): the header now,
# one row per flow at the end of the run (write_tcp_counters).
proc repro::start_tcp_counters {channel} {
    variable counters_tsv
    variable COUNTER_COLUMNS
    set counters_tsv $channel
    puts $channel [join $COUNTER_COLUMNS "\t"]
}

# Each sampled TCP sender's recovery counters as ns-2 counts them: timeouts
# with data outstanding (nrexmit_), retransmissions sent for duplicate ACKs
# (nfastrexmit_, ns2-patches/0022), retransmitted packets (nrexmitpack_); and
# for the BQM sender (0011) its congestion and wireless responses and early
# retransmits, `nan` (read as null) for other senders.
proc repro::write_tcp_counters {} {
    variable counters_tsv
    variable sampled_tcp
    if {$counters_tsv eq ""} {
        return
    }
    foreach pair $sampled_tcp {
        puts $counters_tsv [counters_row {*}$pair]
    }
}

# A row of its own frame: instvar links the names once per object.
proc repro::counters_row {fid tcp} {
    variable BQM_SENDER
    $tcp instvar nrexmit_ nfastrexmit_ nrexmitpack_
    set row [list $fid $nrexmit_ $nfastrexmit_ $nrexmitpack_]
    set cls [$tcp info class]
    if {$cls eq $BQM_SENDER || $BQM_SENDER in [$cls info heritage]} {
        $tcp instvar ncongestion_ nwireless_ nearly_
        lappend row $ncongestion_ $nwireless_ $nearly_
    } else {
        lappend row nan nan nan
    }
    join $row "\t"
}

# The end of the run: objects still in progress are written, the TCP counters
# and the core_log's bins dumped, then ns-2 halts.
proc repro::end_run {ns} {
    variable core_log
    variable core_log_files
    finish_objects
    write_tcp_counters
    dict for {event monitor} $core_log {
        $monitor dump [dict get $core_log_files core_bins] $event
    }
    $ns halt
}
