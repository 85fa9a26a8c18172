# PISA's cwnd average, rebuilt from every arrival: four NewReno flows (fids
# 0-3, 1000-byte segments; fids 0 and 1 capped at maxcwnd_ 4, 2 and 3 at
# window_ 40) and a CBR/UDP flow (fid 9, 500-byte packets at 300 kb/s, no cwnd
# hint) share the bottleneck r1 -> r2 (2 Mb/s, 20 ms, 30-packet buffer,
# qref_ 10), each from its own 100 Mb/s / 1 ms access link; the ACKs come
# back over r2 -> r1, Drop Tail. The small buffer makes the flows' slow starts
# overflow it within the first second, so the first drops are logged while the
# average is still close to its first hint.
# Used by tests/ns2/test_pisa_average.py (patches 0004, 0005, 0007).
#
#   ns pisa_average.tcl ?queue? ?alpha? ?weight? ?stop? ?seed?
#
# queue PI (default): stock Queue/PI and nothing else, so that Debian's ns
# runs it too (tests/ns2/test_byte_identity.py runs every script here without
# arguments). queue PISA: Queue/PI/PISA with alpha_ and cwnd_weight_ (the
# word "default" keeps the class default), its drop log drops.log
# (`$q drop-log`), a HintMonitor after the bottleneck's head logging every
# arrival (time fid seqno size hint qlen) into arrivals.log, and at stop
# final.txt: the queue's alpha_, cwnd_weight_ and cwnd_avg_.
# Always: packets.tr (trace-all).
set args {PI default default 20.0 3}
set args [concat $argv [lrange $args $argc end]]
foreach {qtype alpha weight stop seed} $args break

set ns [new Simulator]
ns-random $seed
set tr [open packets.tr w]
$ns trace-all $tr

if {$qtype eq "PI"} {
    set qclass PI
} else {
    set qclass PI/$qtype
}
set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 2Mb 20ms $qclass
$ns simplex-link $r2 $r1 2Mb 20ms DropTail
$ns queue-limit $r1 $r2 30
$ns queue-limit $r2 $r1 1000
set link [$ns link $r1 $r2]
set q [$link queue]
$q set qref_ 10
if {$alpha ne "default"} {
    $q set alpha_ $alpha
}
if {$weight ne "default"} {
    $q set cwnd_weight_ $weight
}
set logs {}
if {$qtype ne "PI"} {
    set dl [open drops.log w]
    $q drop-log $dl
    set al [open arrivals.log w]
    set mon [new HintMonitor]
    $mon queue $q
    $mon log-drops $al
    $link add-to-head $mon
    set logs [list $dl $al]
}

for {set i 0} {$i < 4} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
    set tcp($i) [$ns create-connection TCP/Newreno $s($i) TCPSink $d($i) $i]
    $tcp($i) set window_ 40
    $tcp($i) set packetSize_ 1000
    if {$i < 2} {
        $tcp($i) set maxcwnd_ 4
    }
    set ftp [$tcp($i) attach-app FTP]
    $ns at [expr 0.05 * $i] "$ftp start"
}
set udp [new Agent/UDP]
$ns attach-agent $s(0) $udp
set null [new Agent/Null]
$ns attach-agent $d(3) $null
$ns connect $udp $null
$udp set fid_ 9
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 300k
$ns at 0.2 "$cbr start"

proc finish {} {
    global ns tr q qtype logs
    $ns flush-trace
    close $tr
    foreach c $logs {
        close $c
    }
    if {$qtype ne "PI"} {
        set f [open final.txt w]
        foreach knob {alpha_ cwnd_weight_ cwnd_avg_} {
            puts $f "$knob [$q set $knob]"
        }
        close $f
    }
    exit 0
}
$ns at $stop "finish"
$ns run
