# Byte-identity check: a PI queue (Hollot et al.) under five TCP flows and a
# Pareto on/off UDP source; packet trace plus PI's traced drop probability.
set ns [new Simulator]
set tr [open packets.tr w]
$ns trace-all $tr
ns-random 42

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1.5Mb 20ms PI
$ns queue-limit $r1 $r2 100
set pi [[$ns link $r1 $r2] queue]
$pi set qref_ 30
set ptr [open pi-prob.tr w]
$pi trace prob_
$pi trace curq_
$pi attach $ptr

for {set i 0} {$i < 5} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb 5ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 5ms DropTail
    set tcp [$ns create-connection TCP/Reno $s($i) TCPSink $d($i) $i]
    set ftp [$tcp attach-app FTP]
    $ns at [expr 0.2 * $i] "$ftp start"
}
set udp [new Agent/UDP]
$ns attach-agent $s(0) $udp
set null [new Agent/Null]
$ns attach-agent $d(4) $null
$ns connect $udp $null
$udp set fid_ 9
set par [new Application/Traffic/Pareto]
$par attach-agent $udp
$par set packetSize_ 210
$par set burst_time_ 500ms
$par set idle_time_ 500ms
$par set rate_ 200k
$par set shape_ 1.5
$ns at 0.5 "$par start"

$ns at 10.0 "$ns flush-trace; close $tr; close $ptr; exit 0"
$ns run
