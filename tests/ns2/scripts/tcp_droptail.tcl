# Byte-identity check: two TCP Reno/FTP flows and one CBR/UDP flow through a
# DropTail bottleneck; full packet trace. Stock ns-2 features only.
set ns [new Simulator]
set tr [open packets.tr w]
$ns trace-all $tr

foreach i {0 1 2 3 4 5} { set n($i) [$ns node] }
$ns duplex-link $n(0) $n(2) 10Mb 2ms DropTail
$ns duplex-link $n(1) $n(2) 10Mb 3ms DropTail
$ns duplex-link $n(2) $n(3) 1.5Mb 20ms DropTail
$ns queue-limit $n(2) $n(3) 20
$ns duplex-link $n(3) $n(4) 10Mb 4ms DropTail
$ns duplex-link $n(3) $n(5) 10Mb 5ms DropTail

foreach {src dst fid start} {0 4 1 0.0 1 5 2 0.3} {
    set tcp [$ns create-connection TCP $n($src) TCPSink $n($dst) $fid]
    $tcp set window_ 40
    set ftp [$tcp attach-app FTP]
    $ns at $start "$ftp start"
}
set udp [new Agent/UDP]
$ns attach-agent $n(0) $udp
set null [new Agent/Null]
$ns attach-agent $n(5) $null
$ns connect $udp $null
$udp set fid_ 3
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 400kb
$ns at 1.0 "$cbr start"

$ns at 8.0 "$ns flush-trace; close $tr; exit 0"
$ns run
