# HintMonitor (ns2-patches/0007) on a small deterministic topology: a CBR/UDP
# flow (fid 2, 500-byte packets at 400 kb/s = 100 packets/s from 0.5 s) and a
# NewReno flow (fid 1, 1000-byte segments, window_ 100, from 1.0 s) share the
# bottleneck r1 -> r2 (1 Mb/s, 10 ms, DropTail, 5-packet buffer), each from
# its own 10 Mb/s / 1 ms access link; r2 -> d is 10 Mb/s / 1 ms. No random
# number is drawn.
# Used by tests/ns2/test_hint_monitor.py.
#
#   ns hint_monitor.tcl ?monitors? ?stop?
#
# monitors 1: four HintMonitors, as tcl/lib/monitors.tcl places
# them:
#   arrival  after r1 -> r2's head (interval_ 0.5), log-drops arrivals.log
#            (every arrival with its hint and the queue length it found),
#            log-delays udp_delays.log for fid 2 only
#   departure after r1 -> r2's delay element (interval_ 1.0, the default),
#            log-delays delays.log for fid 1 only
#   drop     in r1 -> r2's drop chain after drophead_ (queue set),
#            log-drops drops.log
#   ack      after r2 -> r1's head (the ACKs), log-drops acks.log
# and dumps their bins into bins.tsv at stop (events arrival, departure,
# drop, ack). monitors 0 (default): none of them, stock ns-2 only (Debian's ns
# runs it; tests/ns2/test_byte_identity.py runs every script here without arguments).
# Always: packets.tr (trace-all) and summary.txt (the r1 -> r2 QueueMonitor's
# counters and what the sinks received).
set args {0 5.0}
set args [concat $argv [lrange $args $argc end]]
foreach {monitors stop} $args break

set ns [new Simulator]
set tr [open packets.tr w]
$ns trace-all $tr

set u [$ns node]
set t [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d [$ns node]
$ns duplex-link $u $r1 10Mb 1ms DropTail
$ns duplex-link $t $r1 10Mb 1ms DropTail
$ns duplex-link $r1 $r2 1Mb 10ms DropTail
$ns duplex-link $r2 $d 10Mb 1ms DropTail
$ns queue-limit $r1 $r2 5
set qmon [$ns monitor-queue $r1 $r2 ""]

set tcp [new Agent/TCP/Newreno]
$tcp set fid_ 1
$tcp set packetSize_ 1000
$tcp set window_ 100
$ns attach-agent $t $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $d $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
$ns at 1.0 "$ftp start"

set udp [new Agent/UDP]
$udp set fid_ 2
$ns attach-agent $u $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $d $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 400kb
$ns at 0.5 "$cbr start"

set logs {}
if {$monitors} {
    set link [$ns link $r1 $r2]
    foreach {name file} {arrivals arrivals.log udp_delays udp_delays.log delays delays.log
                         drops drops.log acks acks.log bins bins.tsv} {
        set ch($name) [open $file w]
        lappend logs $ch($name)
    }
    set m(arrival) [new HintMonitor]
    $m(arrival) set interval_ 0.5
    $m(arrival) queue [$link queue]
    $m(arrival) log-drops $ch(arrivals)
    $m(arrival) log-delays $ch(udp_delays) {2}
    $link add-to-head $m(arrival)

    set m(departure) [new HintMonitor]
    set delay [$link link]
    $m(departure) target [$delay target]
    $delay target $m(departure)
    $m(departure) log-delays $ch(delays) {1}

    set m(drop) [new HintMonitor]
    set drophead [$link set drophead_]
    $m(drop) target [$drophead target]
    $drophead target $m(drop)
    $m(drop) queue [$link queue]
    $m(drop) log-drops $ch(drops)

    set m(ack) [new HintMonitor]
    $m(ack) log-drops $ch(acks)
    [$ns link $r2 $r1] add-to-head $m(ack)
}

proc finish {} {
    global ns tr qmon tcp lm monitors m ch logs
    if {$monitors} {
        foreach event {arrival departure drop ack} {
            $m($event) dump $ch(bins) $event
        }
        foreach c $logs {
            close $c
        }
    }
    $ns flush-trace
    close $tr
    set f [open summary.txt w]
    foreach counter {parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_ size_ pkts_} {
        puts $f "$counter [$qmon set $counter]"
    }
    puts $f "tcp_ack [$tcp set ack_]"
    puts $f "cbr_received [$lm set npkts_]"
    close $f
    exit 0
}
$ns at $stop "finish"
$ns run
