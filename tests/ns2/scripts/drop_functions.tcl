# Hand-built arrivals at one RED-family queue, to read the drop probability
# ns-2 computes from a hand-set average (tests/ns2/test_drop_probability.py).
# Two UDP agents on n0 send 1000-byte packets straight into the queue of
# n0 -> n1 (1 Mb/s, 10 ms): "in" with fid 1, "out" with fid 0 (Queue/RED/RIO
# with priority_method_ 1 takes a packet as In when its fid is not 0).
#
#   ns drop_functions.tcl queue knobs events
#
# queue: a Queue/ class (RED, RED/RIO); knobs: a Tcl list "name value ..."
# set on the queue before the run (limit_ through queue-limit); events: a Tcl
# list of {time what args}: {t set var value} sets a variable of the queue,
# {t send in|out n} sends n packets from that agent, {t sample var ...}
# prints "sample <t> <var> <value>" per variable, {t drops} prints "drops <t>
# <n>", the queue's drops so far. Events at the same instant run in list order.
# With no arguments: stock RIO, In and Out bursts at hand-set averages, so that
# Debian's ns runs it too (tests/ns2/test_byte_identity.py).
set args {RED/RIO {limit_ 50 q_weight_ 1e-12 priority_method_ 1}
          {{1.0 set ave_ 10} {1.0 send out 6} {1.0 sample ave_ out_prob1_} {1.0 drops}
           {2.0 set in_ave_ 20} {2.0 send in 6} {2.0 sample in_ave_ in_prob1_} {2.0 drops}
           {3.0 set ave_ 20} {3.0 send out 6} {3.0 drops}}}
set args [concat $argv [lrange $args $argc end]]
lassign $args queue knobs events

set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns simplex-link $n0 $n1 1Mb 10ms $queue
set q [[$ns link $n0 $n1] queue]
set qmon [$ns monitor-queue $n0 $n1 ""]
foreach {name value} $knobs {
    if {$name eq "limit_"} {
        $ns queue-limit $n0 $n1 $value
    } else {
        $q set $name $value
    }
}
set null [new Agent/Null]
$ns attach-agent $n1 $null
foreach {name fid} {in 1 out 0} {
    set agent($name) [new Agent/UDP]
    $agent($name) set packetSize_ 1000
    $agent($name) set fid_ $fid
    $ns attach-agent $n0 $agent($name)
    $ns connect $agent($name) $null
}

proc send {who n} {
    global agent
    for {set i 0} {$i < $n} {incr i} {
        $agent($who) send 1000
    }
}
source [file join [file dirname [info script]] sample_vars.tcl]
proc drops {t} {
    global qmon
    puts "drops $t [$qmon set pdrops_]"
}
set last 0
foreach ev $events {
    set t [lindex $ev 0]
    switch -- [lindex $ev 1] {
        set    {$ns at $t [list $q set [lindex $ev 2] [lindex $ev 3]]}
        send   {$ns at $t [list send [lindex $ev 2] [lindex $ev 3]]}
        sample {$ns at $t [concat sample $t [lrange $ev 2 end]]}
        drops  {$ns at $t [list drops $t]}
    }
    if {$t > $last} {
        set last $t
    }
}
$ns at [expr {$last + 1.0}] "exit 0"
$ns run
