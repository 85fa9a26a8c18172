# Alemu's Ch. 2 dumbbell (thesis §2.4.1, Fig. 2.2): TCP/Sack1 flows from S1
# and S2 through R1 -> R2 (1.5 Mb/s, 20 ms, a 35-packet RED-family buffer) to
# S3. Other links 10 Mb/s (2, 3, 4 ms) with DropTail buffers of 1000 packets.
#
#   ns psand_dumbbell.tcl [kind [flows [stop [window [out [knobs]]]]]]
#   ns psand_dumbbell.tcl STEPS knobs averages
#
# kind: RED (stock Queue/RED), FLOYD (adaptive_ 1), FENG (adaptive_ 1,
# feng_adaptive_ 1), PSAND (Queue/RED/PSAND; fails on Debian's ns).
# knobs: a Tcl list "name value ..." set on the bottleneck queue last.
# STEPS: no simulation; a Queue/RED/PSAND in packets (queue_in_bytes_
# false unless the knobs say otherwise) with the knobs, reset, then for
# each average: set ave_, `$q adapt`, print "step ave_ cur_max_p_ kprev_"
# (%.17g; a step "-" prints the state without adapting).
# With no arguments: stock adaptive RED (FLOYD), 4 flows, 20 s, window 20,
# outputs in the current directory (test_byte_identity.py runs it so).
# The queue runs in packets, q_weight_ 0 (1 - exp(-1/C), §2.4.1) with
# mean_pktsize_ 1000 (C = 187.5 packets/s), gentle_ true.
# Outputs: packets.tr (bottleneck R1 -> R2 only), red.tr (RED's trace of
# ave_ "a", prob1_ "p", cur_max_p_ "c"), psand.log (PSAND only).
set kind   [expr {$argc > 0 ? [lindex $argv 0] : "FLOYD"}]
set flows  [expr {$argc > 1 ? [lindex $argv 1] : 4}]
set stop   [expr {$argc > 2 ? [lindex $argv 2] : 20.0}]
set window [expr {$argc > 3 ? [lindex $argv 3] : 20}]
set out    [expr {$argc > 4 ? [lindex $argv 4] : "."}]
set knobs  [expr {$argc > 5 ? [lindex $argv 5] : {}}]

set ns [new Simulator]
if {$kind == "STEPS"} {
    set q [new Queue/RED/PSAND]
    $q set queue_in_bytes_ false
    foreach {name value} [lindex $argv 1] {
        $q set $name $value
    }
    $q reset
    puts "- [$q psand-state]"
    foreach a [lindex $argv 2] {
        $q set ave_ $a
        $q adapt
        puts "$a [$q psand-state]"
    }
    exit 0
}
set rng [new RNG]
$rng seed 11

if {$kind == "PSAND"} {
    set qclass RED/PSAND
} elseif {[lsearch {RED FLOYD FENG} $kind] >= 0} {
    set qclass RED
} else {
    puts stderr "unknown kind $kind"
    exit 2
}
source [file join [file dirname [info script]] lib psand_network.tcl]
$q set gentle_ true
if {$kind != "PSAND"} {
    $q set thresh_ 5
    $q set maxthresh_ 15
}
if {$kind == "FLOYD" || $kind == "FENG"} {
    $q set adaptive_ 1
}
if {$kind == "FENG"} {
    $q set feng_adaptive_ 1
    $q set linterm_ 50
    $q set alpha_ 3
    $q set beta_ 2
}
foreach {name value} $knobs {
    $q set $name $value
}

set tr [open $out/packets.tr w]
$ns trace-queue $r1 $r2 $tr
set rtr [open $out/red.tr w]
$q trace ave_
$q trace prob1_
$q trace cur_max_p_
$q attach $rtr
if {$kind == "PSAND"} {
    set plog [open $out/psand.log w]
    $q psand-log $plog
}

psand_flows $flows $window

proc finish {} {
    global ns tr rtr kind plog
    $ns flush-trace
    close $tr
    close $rtr
    if {$kind == "PSAND"} {
        close $plog
    }
    exit 0
}
$ns at $stop finish
$ns run
