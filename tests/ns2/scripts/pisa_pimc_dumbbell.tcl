# Six NewReno flows and one CBR flow over a PI-family bottleneck; three of
# the TCP senders have their window capped at maxcwnd (their cwnd source hint
# stays <= 7), three are not (window_ 60). The ACK path back is a slow
# simplex link (ackbw) with a small buffer of the same queue class; at 64kb
# it drops ACKs too.
# Used by tests/ns2/test_pisa_pimc.py (patches 0004-0006: cwnd hint,
# Queue/PI/PISA, Queue/PI/PIMC).
#
#   ns pisa_pimc_dumbbell.tcl ?queue? ?stop? ?maxcwnd? ?alpha? ?seed? ?ackbw?
#
# queue: PI (default), PISA or PIMC. With no arguments this uses only stock
# ns-2 (Queue/PI, no drop log), so test_byte_identity.py can run it on our ns
# and Debian's. Writes packets.tr (trace-all), prob.tr (the forward queue's
# prob_ trace), cwnd.tr (every sender's cwnd_), and with PISA or PIMC also
# drops.log (forward queue) and ackdrops.log (ACK queue) via `drop-log`.
set args   {PI 30.0 4 default 7 80kb}
set args   [concat $argv [lrange $args $argc end]]
foreach {qtype stop maxcwnd alpha seed ackbw} $args break

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
$ns simplex-link $r2 $r1 $ackbw 20ms $qclass
$ns queue-limit $r1 $r2 200
$ns queue-limit $r2 $r1 8
set q [[$ns link $r1 $r2] queue]
$q set qref_ 20
set aq [[$ns link $r2 $r1] queue]
$aq set qref_ 2
if {$alpha ne "default"} {
    $q set alpha_ $alpha
}
set ptr [open prob.tr w]
$q trace prob_
$q attach $ptr
if {$qtype ne "PI"} {
    set dl [open drops.log w]
    $q drop-log $dl
    set adl [open ackdrops.log w]
    $aq drop-log $adl
}

set cwf [open cwnd.tr w]
for {set i 0} {$i < 6} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
    set tcp($i) [$ns create-connection TCP/Newreno $s($i) TCPSink $d($i) $i]
    $tcp($i) set window_ 60
    $tcp($i) set packetSize_ 1000
    if {$i < 3} {
        $tcp($i) set maxcwnd_ $maxcwnd
    }
    $tcp($i) attach $cwf
    $tcp($i) trace cwnd_
    set ftp [$tcp($i) attach-app FTP]
    $ns at [expr 0.1 * $i] "$ftp start"
}
set udp [new Agent/UDP]
$ns attach-agent $s(0) $udp
set null [new Agent/Null]
$ns attach-agent $d(5) $null
$ns connect $udp $null
$udp set fid_ 9
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 200k
$ns at 0.5 "$cbr start"

proc finish {} {
    global ns tr ptr cwf qtype dl adl
    $ns flush-trace
    close $tr
    close $ptr
    close $cwf
    if {$qtype ne "PI"} {
        close $dl
        close $adl
    }
    exit 0
}
$ns at $stop "finish"
$ns run
