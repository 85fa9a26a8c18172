# Hand-built arrivals at one queue (patches 0015-0017): a UDP agent on n0 sends
# 1000-byte packets at the listed instants straight into the queue of
# n0 -> n1 (bw, 10 ms); every send enters the queue at exactly that instant.
# Used by tests/ns2/test_blue.py, test_lred.py and test_vq_alpha.py.
#
#   ns aqm_handbuilt.tcl ?queue? ?knobs? ?events? ?bw? ?seed?
#
# queue: a Queue/ class (DropTail, BLUE, LRED, Vq ...); knobs: a Tcl list of
# "name value" pairs set on the queue before the run (limit_ through
# queue-limit). events: a Tcl list of {time what args}: {t send n} sends n
# packets at t; {t sample var ...} prints "sample <t> <var> <value>" per
# variable of the queue (%.17g for numbers); {t set var value} sets one.
# Events at the same instant run in list order. Writes out.tr (the queue's
# trace: + - d). With no arguments: stock DropTail and a short burst, so that
# Debian's ns runs it too (tests/ns2/test_byte_identity.py).
set args {DropTail {limit_ 3} {{1.0 send 5} {1.0 sample limit_} {1.5 send 1}} 1Mb 1}
set args [concat $argv [lrange $args $argc end]]
foreach {queue knobs events bw seed} $args break

set ns [new Simulator]
ns-random $seed
set n0 [$ns node]
set n1 [$ns node]
$ns simplex-link $n0 $n1 $bw 10ms $queue
set q [[$ns link $n0 $n1] queue]
foreach {name value} $knobs {
    if {$name eq "limit_"} {
        $ns queue-limit $n0 $n1 $value
    } else {
        $q set $name $value
    }
}
set tr [open out.tr w]
$ns trace-queue $n0 $n1 $tr
set udp [new Agent/UDP]
$udp set packetSize_ 1000
$ns attach-agent $n0 $udp
set null [new Agent/Null]
$ns attach-agent $n1 $null
$ns connect $udp $null

proc send {n} {
    global udp
    for {set i 0} {$i < $n} {incr i} {
        $udp send 1000
    }
}
source [file join [file dirname [info script]] sample_vars.tcl]
set last 0
foreach ev $events {
    set t [lindex $ev 0]
    switch -- [lindex $ev 1] {
        send   {$ns at $t "send [lindex $ev 2]"}
        sample {$ns at $t [concat sample $t [lrange $ev 2 end]]}
        set    {$ns at $t [list $q set [lindex $ev 2] [lindex $ev 3]]}
    }
    if {$t > $last} {
        set last $t
    }
}
proc finish {} {
    global ns tr
    $ns flush-trace
    close $tr
    exit 0
}
$ns at [expr $last + 1.0] finish
$ns run
