# Byte-identity check: four NewReno flows (two with ECN) through a RED
# bottleneck, start times drawn from a seeded RNG; packet trace plus RED's
# traced average and instantaneous queue.
set ns [new Simulator]
set tr [open packets.tr w]
$ns trace-all $tr

set rng [new RNG]
$rng seed 7
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 2Mb 15ms RED
$ns queue-limit $r1 $r2 50
set red [[$ns link $r1 $r2] queue]
$red set thresh_ 5
$red set maxthresh_ 15
$red set q_weight_ 0.002
$red set setbit_ true
set qtr [open red-queue.tr w]
$red trace curq_
$red trace ave_
$red attach $qtr

for {set i 0} {$i < 4} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb [expr 1 + $i]ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 2ms DropTail
    set tcp [$ns create-connection TCP/Newreno $s($i) TCPSink $d($i) $i]
    $tcp set ecn_ [expr $i % 2]
    $tcp set window_ 64
    set ftp [$tcp attach-app FTP]
    $ns at [$rng uniform 0 1] "$ftp start"
}
$ns at 10.0 "$ns flush-trace; close $tr; close $qtr; exit 0"
$ns run
