# Byte-identity check: a queue monitor and a flow monitor on a congested
# DropTail link, sampled every 100 ms (packet and byte counters, queue size).
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 10ms DropTail
$ns duplex-link $n2 $n3 10Mb 2ms DropTail
$ns queue-limit $n1 $n2 15

set qm [$ns monitor-queue $n1 $n2 ""]
set fm [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $n1 $n2] $fm

foreach fid {1 2 3} {
    set tcp [$ns create-connection TCP/Newreno $n0 TCPSink $n3 $fid]
    set ftp [$tcp attach-app FTP]
    $ns at [expr 0.1 * $fid] "$ftp start"
}

set out [open monitor.out w]
proc sample {} {
    global ns qm out
    set now [$ns now]
    set row [format "%.2f" $now]
    foreach v {size_ pkts_ parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_} {
        append row " [$qm set $v]"
    }
    puts $out $row
    $ns at [expr $now + 0.1] "sample"
}
proc finish {} {
    global fm out
    foreach f [$fm flows] {
        puts $out "flow [$f set flowid_] [$f set parrivals_] [$f set barrivals_] [$f set pdrops_] [$f set bdrops_]"
    }
    close $out
    exit 0
}
$ns at 0.0 "sample"
$ns at 6.0 "finish"
$ns run
