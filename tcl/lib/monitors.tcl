# Outputs of the simulation: packets.tr (DESIGN.md §4) through trace-queue on
# every recorded link, and queue_monitor.tsv (§5) sampled from a QueueMonitor
# on every core link.

namespace eval repro {
    variable monitors {}   ;# {link name, QueueMonitor} pairs, core0 first
}

proc repro::install_monitors {ns trace} {
    variable links
    variable monitors
    foreach link $links {
        set from [dict get $link from]
        set to [dict get $link to]
        $ns trace-queue $from $to $trace
        if {[dict get $link monitored]} {
            lappend monitors [list [dict get $link name] [$ns monitor-queue $from $to ""]]
        }
    }
}

# One sample every `interval` seconds from 0 to duration inclusive, each
# sample scheduling the next; the last one schedules the end of the run at
# duration, after itself (ns-2 runs events of equal time in the order they
# were scheduled). Times are i * interval rounded to the nanosecond, so that
# 700 * 0.1 is 70, not 70.00000000000001.
proc repro::start_samples {ns tsv interval duration} {
    puts $tsv [join {time link size_bytes size_packets arrivals_packets arrivals_bytes
                     departures_packets departures_bytes drops_packets drops_bytes} "\t"]
    $ns at 0.0 [list repro::sample $ns $tsv $interval $duration 0]
}

proc repro::sample {ns tsv interval duration i} {
    variable monitors
    set now [format %.6f [$ns now]]
    foreach pair $monitors {
        lassign $pair name qmon
        set row [list $now $name]
        foreach counter {size_ pkts_ parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_} {
            lappend row [$qmon set $counter]
        }
        puts $tsv [join $row "\t"]
    }
    incr i
    set next [expr {round($i * $interval * 1e9) / 1e9}]
    if {$next <= $duration} {
        $ns at $next [list repro::sample $ns $tsv $interval $duration $i]
    } else {
        $ns at $duration [list $ns halt]
    }
}
