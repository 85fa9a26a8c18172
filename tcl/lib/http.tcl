# The HTTP object model (PISA/PIMC thesis §2.4, §3.1, §4.7), flow kind `http`: each
# flow is a server/client pair that sends one web object per connection, over and
# over: a fresh one-way TCP agent and sink per object (so every object starts with a
# new connection's window), an object size drawn from a Pareto II distribution and
# bounded, then an idle gap after the object is acknowledged before the next one.
#
# objects.tsv gets one line per object: fid, object number, start (when the object
# was handed to TCP), end (when its last byte was acknowledged; nan if the run ended
# first) and bytes.

namespace eval repro {
    variable objects_tsv ""   ;# channel of objects.tsv, "" when the run has no http flows
    variable http_open {}     ;# fid -> {object start bytes} of the object in progress
    variable OBJECT_COLUMNS {fid object start end bytes}
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

# Starts the next object of an http flow on a new connection.
proc repro::http_object {ns flow} {
    variable http_open
    set fid [dict get $flow fid]
    set http [dict get $flow http]
    set number [expr {[dict exists $http_open $fid] ? [lindex [dict get $http_open $fid] 0] + 1 : 1}]
    set bytes [http_size $http]
    set tcp [create [dict get $http agent_spec] flows.$fid.agent]
    apply_knobs $tcp [dict get $http agent_spec] flows.$fid.agent [http_reserved]
    $tcp set fid_ $fid
    set sink [create [dict get $http sink_spec] flows.$fid.sink]
    apply_knobs $sink [dict get $http sink_spec] flows.$fid.sink
    $ns attach-agent [dict get $flow src] $tcp
    $ns attach-agent [dict get $flow dst] $sink
    $ns connect $tcp $sink
    set start [$ns now]
    dict set http_open $fid [list $number $start $bytes]
    $tcp proc done {} [list repro::http_done $ns $flow $tcp $sink]
    $tcp send $bytes
}

# Called by ns-2 (TcpAgent::finish) when the object's last byte is acknowledged.
proc repro::http_done {ns flow tcp sink} {
    variable http_open
    set fid [dict get $flow fid]
    lassign [dict get $http_open $fid] number start bytes
    write_object $fid $number $start [format %.6f [$ns now]] $bytes
    dict set http_open $fid [list $number "" ""]
    # Detach after the current event: this runs inside the agent's own receive.
    $ns at [$ns now] [list repro::http_close $ns $flow $tcp $sink]
    $ns at [expr {[$ns now] + [dict get $flow http idle]}] [list repro::http_object $ns $flow]
}

proc repro::http_close {ns flow tcp sink} {
    $ns detach-agent [dict get $flow src] $tcp
    $ns detach-agent [dict get $flow dst] $sink
}

proc repro::write_object {fid number start end bytes} {
    variable objects_tsv
    puts $objects_tsv [join [list $fid $number [format %.6f $start] $end $bytes] "\t"]
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
            write_object $fid $number $start nan $bytes
        }
    }
}
