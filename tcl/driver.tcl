# The one ns-2 driver of ns2-repro (DESIGN.md §1):
#
#     build/ns2/ns tcl/driver.tcl <run dir>
#
# reads <run dir>/params.json and writes meta.json, packets.log (monitors.packet_trace
# true, the default; packets.tr when it is text), queue_monitor.tsv and, when the run has TCP
# flows, flows.tsv and tcp_counters.tsv, with http flows objects.tsv, and with monitors.core_log
# core_bins.tsv, core_drops.tsv and core_delays.tsv, and when a flow's sink is an
# Agent/LossMonitor sinks.tsv and sink_gaps.tsv into <run dir>. A bad parameter gives one line on stderr
# and exit status 3, before any output file exists. A wireless run (topology
# kind wireless) also writes drops.tr, the CMU drop lines of its nodes.

set lib [file join [file dirname [file normalize [info script]]] lib]
foreach part {params headers queues topology wireless traffic http monitors meta} {
    source [file join $lib $part.tcl]
}

namespace eval repro {
    variable OUTPUTS {meta.json packets.log packets.tr queue_monitor.tsv flows.tsv tcp_counters.tsv
                      objects.tsv core_bins.tsv core_drops.tsv core_delays.tsv drops.tr queue_vars.tsv
                      sinks.tsv sink_gaps.tsv}
}

proc repro::main {run_dir} {
    set params [load_params [file join $run_dir params.json]]
    check_fields $params "" {schema seed duration topology core_queue flows monitors} \
        {core_reverse_queue}
    if {[dict get $params schema] ne "ns2-repro/run-params/2"} {
        fail schema "unsupported schema \"[dict get $params schema]\"" ns2-repro/run-params/2
    }
    set seed [need_number $params "" seed ">= 1" 1]
    set duration [need_number $params "" duration "> 0"]
    set monitors [need_object $params "" monitors queue_sample_interval {packet_trace packet_headers core_log queue_vars flow_sample_interval}]
    set interval [need_number $monitors monitors queue_sample_interval "> 0"]
    if {[dict exists $monitors flow_sample_interval]} {
        set_flow_sample_interval [need_number $monitors monitors flow_sample_interval "> 0"] $interval
    }
    set core_log ""
    if {[dict exists $monitors core_log]} {
        set core_log [need_object $monitors monitors core_log interval]
        need_number $core_log monitors.core_log interval "> 0"
    }
    # true: packets.log, the packet events the metrics read (PacketLog, patch 0019);
    # text: ns-2's own text trace of every event, packets.tr, to read by eye; false: neither.
    set packet_trace true
    if {[dict exists $monitors packet_trace]} {
        set packet_trace [dict get $monitors packet_trace]
        if {$packet_trace ni {true false text}} {
            fail monitors.packet_trace "bad value \"$packet_trace\"" "true, false, text"
        }
    }

    set wireless [is_wireless $params]
    set queue_vars {}
    if {[dict exists $monitors queue_vars]} {
        set queue_vars [dict get $monitors queue_vars]
        if {$wireless} {
            fail monitors.queue_vars "a wireless run has no core link queue" "queue_vars on wired topologies only"
        }
    }
    if {$wireless && $packet_trace ne "false"} {
        fail monitors.packet_trace "a wireless run has no wired packet trace" \
            "false (its drops go to drops.tr, its flows to flows.tsv)"
    }

    set packet_headers used
    if {[dict exists $monitors packet_headers]} {
        set packet_headers [dict get $monitors packet_headers]
        if {$packet_headers ni {used all}} {
            fail monitors.packet_headers "bad value \"$packet_headers\"" "used, all"
        }
    }
    register_packet_headers $packet_headers $wireless $packet_trace

    set ns [new Simulator]
    explain_abort $ns
    # Pareto sources, RED and PI, and 802.11's backoff draw from the default RNG.
    $::defaultRNG seed $seed
    set drops ""
    if {$wireless} {
        # Everything is checked before the first mobile node: ns-2 prints a line then.
        check_wireless $params
        build_flows $ns $params $duration
        # ns-2 needs the trace channel before the first mobile node.
        set drops [open [file join $run_dir drops.tr] w]
        build_wireless $ns $drops
    } else {
        build_core $ns $params
        check_queue_vars $queue_vars
        build_flows $ns $params $duration
    }
    place_flows $ns

    # Every parameter has been applied: only now do output files appear.
    set trace ""
    set packet_log ""
    if {$packet_trace eq "text"} {
        set trace [open [file join $run_dir packets.tr] w]
    } elseif {$packet_trace} {
        set packet_log [file join $run_dir packets.log]
    }
    set tsv [open [file join $run_dir queue_monitor.tsv] w]
    set flows_tsv ""
    set counters_tsv ""
    if {[llength [tcp_flows]]} {
        set flows_tsv [open [file join $run_dir flows.tsv] w]
        set counters_tsv [open [file join $run_dir tcp_counters.tsv] w]
        start_tcp_counters $counters_tsv
    }
    set vars_tsv ""
    if {[llength $queue_vars]} {
        set vars_tsv [open [file join $run_dir queue_vars.tsv] w]
        start_queue_vars $vars_tsv $queue_vars
    }
    set objects ""
    if {[llength [http_flows]]} {
        set objects [open [file join $run_dir objects.tsv] w]
        start_objects $objects
    }
    set loss_monitors {}
    if {[llength [loss_monitor_flows]]} {
        set loss_monitors [list [open [file join $run_dir sinks.tsv] w] [open [file join $run_dir sink_gaps.tsv] w]]
        start_loss_monitors {*}$loss_monitors
    }
    install_monitors $ns $trace $packet_log
    if {$core_log ne ""} {
        install_core_log $ns $run_dir [dict get $core_log interval]
    }
    # meta.json at time 0, after ns-2's reset: values derived there (RED's
    # thresh_queue_, cur_max_p_) are the ones in force.
    $ns at 0.0 [list repro::write_meta [file join $run_dir meta.json]]
    start_flows $ns
    # The last sample halts the run at duration.
    start_samples $ns $tsv $flows_tsv $interval $duration
    $ns run
    close_packet_log
    foreach channel [list $trace $tsv $flows_tsv $counters_tsv $objects $drops $vars_tsv {*}$loss_monitors {*}[core_log_channels]] {
        if {$channel ne ""} {
            close $channel
        }
    }
}

proc repro::remove_outputs {run_dir} {
    variable OUTPUTS
    foreach name $OUTPUTS {
        file delete [file join $run_dir $name]
    }
}

if {$argc != 1} {
    puts stderr "usage: ns [info script] <run dir>"
    exit 2
}
set run_dir [lindex $argv 0]
if {[catch {repro::main $run_dir} msg opts]} {
    repro::remove_outputs $run_dir
    if {[dict get $opts -errorcode] eq "NS2REPRO"} {
        puts stderr $msg
        exit 3
    }
    puts stderr "ns2-repro: internal error: [dict get $opts -errorinfo]"
    exit 1
}
exit 0
