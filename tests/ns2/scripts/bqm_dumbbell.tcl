# Biased Queue Management (patches 0009-0012) on a small dumbbell: n flows of
# 500-byte packets, window 40, from S_i over r1 -> r2 (1 Mb/s, 20 ms, a buffer
# of 10 packets) to D_i; access links 10 Mb/s, 1 ms. Used by tests/ns2/test_bqm.py.
#
#   ns bqm_dumbbell.tcl ?sender? ?sink? ?queue? ?flows? ?stop? ?loss? ?pattern? ?modified? ?outdir? ?messages? ?knobs?
#   ns bqm_dumbbell.tcl diagnose <knobs> <loss sets>
#
# sender: Newreno or BQM (Agent/TCP/Newreno/BQM); sink: TCPSink or BQM
# (Agent/TCPSink/BQM); queue: DropTail, BQM (Queue/DropTail/BQM), PriQueue
# (Queue/DropTail/PriQueue) or PriQueueBQM (its BQM variant, on a wired link). With no
# arguments all three are stock, so that this is a stock-feature script
# (test_byte_identity.py runs it on our ns and Debian's). loss > 0 puts a random
# packet loss of that rate on every r2 -> D_i link ("wireless" losses, after the
# bottleneck). pattern: the senders' and sinks' pattern_ ("default" leaves the
# class default); modified: the sinks' modified_. messages > 0: every that many
# seconds from 1 s, a node M beside S_i sends a message (Agent/Message, packet
# type message) over r1 -> r2; a PriQueue treats it as a routing packet (to the
# head of the queue, its arrival at a full queue pushing another packet out:
# PriQueue's high_priority_victim()). knobs: "name value" pairs set on every
# sender (e.g. early_rexmit_ 1). Writes outdir/out.tr
# (trace-all), and for BQM agents outdir/sender<i>.tsv and outdir/sink<i>.tsv
# (their bqm-log); BQM senders print "counters <i> <nearly_> <ncongestion_>
# <nwireless_>" at the end.
#
# diagnose: no simulation. knobs is a Tcl list of "name value" pairs set on a
# new Agent/TCPSink/BQM and a new Agent/TCP/Newreno/BQM where the class has the
# knob; prints "prio <seqno> <level>" for seqno 0..31 (the sender's levels), then
# "diagnose <set> -> <ltype> <measure> <x> <r> <burst>" for each loss set (the
# receiver's diagnosis of that hand-built set of lost seqnos).
if {[lindex $argv 0] eq "diagnose"} {
    set ns [new Simulator]
    set sink [new Agent/TCPSink/BQM]
    set tcp [new Agent/TCP/Newreno/BQM]
    foreach {name value} [lindex $argv 1] {
        foreach obj [list $sink $tcp] {
            if {![catch {$obj set $name}]} {
                $obj set $name $value
            }
        }
    }
    for {set i 0} {$i < 32} {incr i} {
        puts "prio $i [$tcp prio $i]"
    }
    foreach s [lindex $argv 2] {
        puts "diagnose [join $s ,] -> [$sink diagnose $s]"
    }
    exit 0
}

set args {Newreno TCPSink DropTail 4 20.0 0 default false . 0 {}}
set args [concat $argv [lrange $args $argc end]]
foreach {sender sink queue n stop loss pattern modified outdir messages knobs} $args break

set ns [new Simulator]
set tr [open $outdir/out.tr w]
$ns trace-all $tr

set r1 [$ns node]
set r2 [$ns node]
switch -- $queue {
    BQM         {$ns duplex-link $r1 $r2 1Mb 20ms DropTail/BQM}
    PriQueue    {$ns duplex-link $r1 $r2 1Mb 20ms DropTail/PriQueue}
    PriQueueBQM {$ns duplex-link $r1 $r2 1Mb 20ms DropTail/PriQueue/BQM}
    default     {$ns duplex-link $r1 $r2 1Mb 20ms DropTail}
}
$ns queue-limit $r1 $r2 10

set rng [new RNG]
$rng seed 7
set logs {}
for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 1ms DropTail
    if {$loss > 0} {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ $loss
        $em ranvar [new RandomVariable/Uniform]
        [$em ranvar] use-rng $rng
        $em drop-target [new Agent/Null]
        $ns lossmodel $em $r2 $d($i)
    }
    if {$sender eq "BQM"} {
        set tcp($i) [new Agent/TCP/Newreno/BQM]
    } else {
        set tcp($i) [new Agent/TCP/Newreno]
    }
    if {$sink eq "BQM"} {
        set snk($i) [new Agent/TCPSink/BQM]
        $snk($i) set modified_ $modified
    } else {
        set snk($i) [new Agent/TCPSink]
    }
    if {$pattern ne "default"} {
        $tcp($i) set pattern_ $pattern
        $snk($i) set pattern_ $pattern
    }
    foreach {name value} $knobs {
        $tcp($i) set $name $value
    }
    $tcp($i) set fid_ $i
    $tcp($i) set packetSize_ 500
    $tcp($i) set window_ 40
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $snk($i)
    $ns connect $tcp($i) $snk($i)
    if {$sender eq "BQM"} {
        set f [open $outdir/sender$i.tsv w]
        $tcp($i) bqm-log $f
        lappend logs $f
    }
    if {$sink eq "BQM"} {
        set f [open $outdir/sink$i.tsv w]
        $snk($i) bqm-log $f
        lappend logs $f
    }
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at [expr {0.1 + 0.37 * $i}] "$ftp($i) start"
}

if {$messages > 0} {
    set m [$ns node]
    $ns duplex-link $m $r1 10Mb 1ms DropTail
    set msg [new Agent/Message]
    $ns attach-agent $m $msg
    set null [new Agent/Null]
    $ns attach-agent $d(0) $null
    $ns connect $msg $null
    for {set t 1.0} {$t < $stop} {set t [expr {$t + $messages}]} {
        $ns at $t "$msg send m"
    }
}

proc finish {} {
    global ns tr logs sender n tcp
    $ns flush-trace
    close $tr
    foreach f $logs {
        close $f
    }
    if {$sender eq "BQM"} {
        for {set i 0} {$i < $n} {incr i} {
            puts "counters $i [$tcp($i) set nearly_] [$tcp($i) set ncongestion_] [$tcp($i) set nwireless_]"
        }
    }
    exit 0
}
$ns at $stop finish
$ns run
