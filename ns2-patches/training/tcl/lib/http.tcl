# The HTTP object model (PISA/PIMC thesis §2.4, §3.1, §4.7), flow kind `http`: each
# flow is a server/client pair that sends one web object per connection, over and
# over: a new incarnation of a one-way TCP connection per object (so every object
# starts with a new connection's window, RTT estimate and initial timeout), an
# object size drawn from a Pareto II distribution and bounded, then an idle gap
# after the object is acknowledged before the next one.
#
# The connection: each flow has one agent and sink, made from the group's
# templates at its first object and `reset` before every later one. ns-2's
# reset is its model of a new connection: TcpAgent::reset() restores the
# initial window, ssthresh, sequence numbers and RTT state (rtt_init: the 3 s
# initial timeout) and TcpSink::reset() its receive state, and both ends then
# discard packets of the previous incarnation (tcp.cc, tcp-sink.cc:
# lastreset_). A new agent pair per object behaves the same but costs ~2.6 ms
# of OTcl object set-up each (against 4 us for resetting both ends), ~94 % of a
# run's CPU time with 100 flows (bench/http_connections.py, docs/PERFORMANCE.md).
#
# objects.tsv gets one line per object: fid, object number, start (when the object
# was handed to TCP), end (when its last byte was acknowledged at the server; nan if
# the run ended first), bytes, and delivered (when the client had the whole object:
# the sink's last in-order delivery, ns2-patches/0008; nan with end).

namespace eval repro {
    variable objects_tsv ""   ;# channel of objects.tsv, "" when the run has no http flows
    variable http_open {}     ;# fid -> {object start bytes} of the object in progress
    variable http_pair {}     ;# fid -> {agent sink} of the flow's connection
    variable OBJECT_COLUMNS {fid object start end bytes delivered}
}

# The http object of a flow: mean_bytes, shape (> 1), min_bytes <= max_bytes, bound
# (resample or clip) and idle (seconds), checked.
proc repro::need_http {flow where} {
    variable HTTP_FIELDS
    set http [dict get $flow http]
    check_fields $http $where $HTTP_FIELDS
    need_number $http $where mean_bytes "> 0"
    need_number $http $where shape "> 1"
    set low [need_number $http $where min_bytes ">= 1" 1]
    need_number $http $where max_bytes ">= $low" 1
    need_number $http $where idle ">= 0"
    if {[dict get $http bound] ni {resample clip}} {
        fail $where.bound "bad value \"[dict get $http bound]\"" "resample, clip"
    }
    set rv [new RandomVariable/ParetoII]
    $rv set avg_ [dict get $http mean_bytes]
    $rv set shape_ [dict get $http shape]
    return [dict set http rv $rv]
}

# Agent knobs an http flow's template may not set: the driver sets them per object.
proc repro::http_reserved {} {
    variable ATTACHED
    return [dict merge $ATTACHED {fid_ "it is the flow's fid" class_ "it is fid_ under another name"}]
}

# One object's size in bytes: a Pareto II draw, redrawn (resample) or clamped (clip)
# until it lies in [min_bytes, max_bytes], rounded to whole bytes.
proc repro::http_size {http} {
    set low [dict get $http min_bytes]
    set high [dict get $http max_bytes]
    set rv [dict get $http rv]
    while 1 {
        set bytes [expr {round([$rv value])}]
        if {$bytes >= $low && $bytes <= $high} {
            return $bytes
        }
        if {[dict get $http bound] eq "clip"} {
            return [expr {min(max($bytes, $low), $high)}]
        }
    }
}

# Starts the next object of an http flow on a new connection (incarnation).
proc repro::http_object {ns flow} {
    variable http_open
    variable http_pair
    set fid [dict get $flow fid]
    set http [dict get $flow http]
    set number [expr {[dict exists $http_open $fid] ? [lindex [dict get $http_open $fid] 0] + 1 : 1}]
    set bytes [http_size $http]
    if {[dict exists $http_pair $fid]} {
        lassign [dict get $http_pair $fid] tcp sink
        $tcp reset
        $sink reset
    } else {
        lassign [http_connection $ns $flow] tcp sink
        dict set http_pair $fid [list $tcp $sink]
    }
    dict set http_open $fid [list $number [$ns now] $bytes]
    $tcp send $bytes
}

# The agent and sink of an http flow, attached and connected; the agent's
# `done` (called when its data is all acknowledged) ends the object.
proc repro::http_connection {ns flow} {
    set fid [dict get $flow fid]
    set http [dict get $flow http]
    set tcp [create [dict get $http agent_spec] flows.$fid.agent]
    apply_knobs $tcp [dict get $http agent_spec] flows.$fid.agent [http_reserved]
    $tcp set fid_ $fid
    set sink [create [dict get $http sink_spec] flows.$fid.sink]
    apply_knobs $sink [dict get $http sink_spec] flows.$fid.sink
    $ns attach-agent [dict get $flow src] $tcp
    $ns attach-agent [dict get $flow dst] $sink
    $ns connect $tcp $sink
    $tcp proc done {} [list repro::http_done $ns $flow]
    return [list $tcp $sink]
}

# Called by ns-2 (TcpAgent::finish) when the object's last byte is acknowledged;
# the sink got that byte (in order) when it last delivered to its application.
proc repro::http_done {ns flow} {
    variable http_open
    variable http_pair
    set fid [dict get $flow fid]
    lassign [dict get $http_open $fid] number start bytes
    set sink [lindex [dict get $http_pair $fid] 1]
    write_object $fid $number $start [format %.6f [$ns now]] $bytes [format %.6f [$sink last-delivery]]
    dict set http_open $fid [list $number "" ""]
    $ns at [expr {[$ns now] + [dict get $flow http idle]}] [list repro::http_object $ns $flow]
}

proc repro::write_object {fid number start end bytes delivered} {
    variable objects_tsv
    puts $objects_tsv [join [list $fid $number [format %.6f $start] $end $bytes $delivered] "\t"]
}

proc repro::http_flows {} {
    variable flows
    set result {}
    foreach flow $flows {
        if {[dict get $flow kind] eq "http"} {
            lappend result $flow
        }
    }
    return $result
}

# objects.tsv's header; at the end of the run, the objects still in progress.
proc repro::start_objects {channel} {
    variable objects_tsv
    variable OBJECT_COLUMNS
    set objects_tsv $channel
    puts $channel [join $OBJECT_COLUMNS "\t"]
}

proc repro::finish_objects {} {
    variable http_open
    variable objects_tsv
    if {$objects_tsv eq ""} {
        return
    }
    foreach fid [lsort -integer [dict keys $http_open]] {
        lassign [dict get $http_open $fid] number start bytes
        if {$start ne ""} {
            write_object $fid $number $start nan $bytes nan
        }
    }
}
