# Benchmark workload: the longer run. 60 NewReno/FTP flows and 10 Pareto on/off
# UDP sources share a 10 Mb/s RED bottleneck for 120 simulated seconds, with a
# full packet trace written, as the paper experiments do.
set ns [new Simulator]
ns-random 1
set tr [open packets.tr w]
$ns trace-all $tr

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 20ms RED
$ns queue-limit $r1 $r2 200
for {set i 0} {$i < 70} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb [expr 1 + $i % 10]ms DropTail
    $ns duplex-link $r2 $d($i) 100Mb 2ms DropTail
}
for {set i 0} {$i < 60} {incr i} {
    set tcp [$ns create-connection TCP/Newreno $s($i) TCPSink $d($i) $i]
    $tcp set window_ 100
    set ftp [$tcp attach-app FTP]
    $ns at [expr 0.05 * $i] "$ftp start"
}
for {set i 60} {$i < 70} {incr i} {
    set udp [new Agent/UDP]
    $ns attach-agent $s($i) $udp
    set null [new Agent/Null]
    $ns attach-agent $d($i) $null
    $ns connect $udp $null
    set par [new Application/Traffic/Pareto]
    $par attach-agent $udp
    $par set rate_ 300k
    $ns at 1.0 "$par start"
}
$ns at 120.0 "$ns flush-trace; close $tr; exit 0"
$ns run
