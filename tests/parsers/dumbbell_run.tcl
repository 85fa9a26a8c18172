# A small run laid out like the Tcl driver's (DESIGN.md sections 3-5): a dumbbell C0->C1 with a RED bottleneck,
# flow i from its own source S_i (node 2+2i) to its own sink R_i (node 3+2i); trace-queue on the forward core link
# and on every entry and exit link; a queue monitor on the core link sampled every 0.1 s into queue_monitor.tsv.
# Flow 3 (CBR) is sent faster than its 1 Mb/s entry link carries, so it also loses packets on its entry link.
set ns [new Simulator]
ns-random 7
set duration 3.0
set interval 0.1
set tr [open packets.tr w]

set c0 [$ns node]
set c1 [$ns node]
$ns duplex-link $c0 $c1 2Mb 10ms RED
$ns queue-limit $c0 $c1 20
foreach {fid bw} {1 100Mb 2 100Mb 3 1Mb} {
    set s($fid) [$ns node]
    set r($fid) [$ns node]
    $ns duplex-link $s($fid) $c0 $bw 1ms DropTail
    $ns queue-limit $s($fid) $c0 8
    $ns duplex-link $c1 $r($fid) 100Mb 1ms DropTail
}
set qm [$ns monitor-queue $c0 $c1 ""]
$ns trace-queue $c0 $c1 $tr
foreach fid {1 2 3} {
    $ns trace-queue $s($fid) $c0 $tr
    $ns trace-queue $c1 $r($fid) $tr
}
foreach fid {1 2} {
    set tcp [$ns create-connection TCP/Newreno $s($fid) TCPSink $r($fid) $fid]
    $tcp set window_ 40
    set ftp [$tcp attach-app FTP]
    $ns at [expr 0.1 * $fid] "$ftp start"
}
set udp [new Agent/UDP]
$ns attach-agent $s(3) $udp
set null [new Agent/Null]
$ns attach-agent $r(3) $null
$ns connect $udp $null
$udp set fid_ 3
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 1.5Mb
$ns at 0.5 "$cbr start"

set qf [open queue_monitor.tsv w]
puts $qf "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes\tdepartures_packets\tdepartures_bytes\tdrops_packets\tdrops_bytes"
proc sample {t} {
    global qm qf
    set row [format "%.6f\tcore0" $t]
    foreach v {size_ pkts_ parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_} {
        append row "\t[$qm set $v]"
    }
    puts $qf $row
}
for {set i 0} {$i * $interval <= $duration + 1e-9} {incr i} {
    $ns at [expr $i * $interval] "sample [expr $i * $interval]"
}
$ns at $duration "$ns flush-trace; close $tr; close $qf; exit 0"
$ns run
