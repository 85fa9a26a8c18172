# Queue/RED/PSAND's thresh_mode_ (patch 0018; Alemu's thesis Ch. 3 §3.3,
# Table 3.2): Min_th and Max_th moved at every step by K_cur - K_prev.
#
#   ns psand_thresholds.tcl STEPS knobs steps
#   ns psand_thresholds.tcl RUN flows stop window out knobs
#   ns psand_thresholds.tcl
#
# knobs: a Tcl list "name value ..." set on the queue last.
# STEPS: no simulation. A Queue/RED/PSAND in packets (queue_in_bytes_ false
# unless the knobs say otherwise) with limit_ 35, the knobs, reset; then
# for each step: a number sets ave_ to it and runs `$q adapt`; R runs
# `$q reset`; K:name:value sets a knob from Tcl (`$q set name value`);
# "-" does nothing. After each (and once after the first reset, as "-"),
# one line:
#   step th_min th_max ave_ cur_max_p_ kprev_ thresh_ maxthresh_
#        thresh_queue_ maxthresh_queue_
# th_min th_max: `$q thresh-state`; ave_ cur_max_p_ kprev_: `$q
# psand-state`; the rest read with `$q set` (what a monitor samples).
# RUN: psand_dumbbell.tcl's network (the thesis's Fig. 2.2 dumbbell: TCP/
# Sack1 flows through R1 -> R2, 1.5 Mb/s, 20 ms, a 35-packet buffer) with
# Queue/RED/PSAND at the bottleneck, in packets, q_weight_ 0, mean_pktsize_
# 1000. Outputs in out: trace.tr, one channel for the packet trace of R1 ->
# R2 (+ - r d) and RED's variable trace (ave_ "a", prob1_ "p", cur_max_p_
# "c", curq_ "Q": each written when the value changes), so the records come
# in event order: an arrival's "+", then RED's "a" and "Q" for it, then its
# "d" if it is dropped. psand.log, thresh.log, and samples.tr ("time
# thresh_ maxthresh_" read with `$q set` every 0.1 s, at 0.05, 0.15, ... s:
# between the ticks).
# With no arguments: the same network with stock Queue/RED (thresh_ 5,
# maxthresh_ 15), 20 flows, 20 s, window 20, outputs trace.tr and samples.tr
# in the current directory (test_byte_identity.py runs it so).
set kind [expr {$argc > 0 ? [lindex $argv 0] : "RED"}]
set ns [new Simulator]

if {$kind == "STEPS"} {
    set q [new Queue/RED/PSAND]
    $q set queue_in_bytes_ false
    $q set limit_ 35
    foreach {name value} [lindex $argv 1] {
        $q set $name $value
    }
    proc show {step} {
        global q
        puts "$step [$q thresh-state] [$q psand-state] [$q set thresh_]\
              [$q set maxthresh_] [$q set thresh_queue_] [$q set maxthresh_queue_]"
    }
    $q reset
    show -
    foreach s [lindex $argv 2] {
        if {$s == "R"} {
            $q reset
        } elseif {[string match K:* $s]} {
            set w [split $s :]
            $q set [lindex $w 1] [lindex $w 2]
        } elseif {$s != "-"} {
            $q set ave_ $s
            $q adapt
        }
        show $s
    }
    exit 0
}
if {$kind == "RUN"} {
    set qclass RED/PSAND
    foreach {flows stop window out knobs} [lrange $argv 1 5] break
} elseif {$kind == "RED"} {
    set qclass RED
    foreach {flows stop window out knobs} {20 20.0 20 . {}} break
} else {
    puts stderr "unknown kind $kind"
    exit 2
}

set rng [new RNG]
$rng seed 11
source [file join [file dirname [info script]] lib psand_network.tcl]
if {$kind == "RED"} {
    $q set thresh_ 5
    $q set maxthresh_ 15
}
foreach {name value} $knobs {
    $q set $name $value
}

set tr [open $out/trace.tr w]
$ns trace-queue $r1 $r2 $tr
$q trace ave_
$q trace prob1_
$q trace cur_max_p_
$q trace curq_
$q attach $tr
set logs [list $tr]
if {$kind == "RUN"} {
    set plog [open $out/psand.log w]
    $q psand-log $plog
    set tlog [open $out/thresh.log w]
    $q thresh-log $tlog
    lappend logs $plog $tlog
}
set samples [open $out/samples.tr w]
lappend logs $samples
proc sample {} {
    global ns q samples
    puts $samples "[$ns now] [$q set thresh_] [$q set maxthresh_]"
    $ns at [expr {[$ns now] + 0.1}] sample
}
$ns at 0.05 sample

psand_flows $flows $window

proc finish {} {
    global ns logs
    $ns flush-trace
    foreach f $logs {
        close $f
    }
    exit 0
}
$ns at $stop finish
$ns run
