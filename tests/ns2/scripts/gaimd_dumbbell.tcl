# One TCP(alpha, beta) flow over a small dumbbell with a DropTail bottleneck
# small enough to force losses, and an outage of the bottleneck that forces
# retransmission timeouts; traces cwnd_ and ssthresh_ of the sender.
# Used by tests/ns2/test_gaimd.py (patch 0003, gaimd_strict_).
#
#   ns gaimd_dumbbell.tcl ?agent? ?gaimd_strict? ?alpha? ?beta? ?trace-file? \
#       ?stop? ?down-at? ?up-at?
#
# agent: TCP (Tahoe), Reno or Newreno. gaimd_strict "default" leaves the knob
# unset, so that with no arguments this is a stock-feature script (run by
# test_byte_identity.py on our ns and Debian's: stock TCP with
# decrease_num_ 0.875 must behave as in Debian's ns). From down-at to up-at
# the bottleneck drops every packet.
set args   {Newreno default 0.3125 0.875 cwnd.tr 20.0 5.0 6.0}
set args   [concat $argv [lrange $args $argc end]]
foreach {agent strict alpha beta trfile stop down up} $args break

set ns [new Simulator]
set s  [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d  [$ns node]
$ns duplex-link $s  $r1 10Mb 2ms DropTail
$ns duplex-link $r1 $r2 1Mb 20ms DropTail
$ns duplex-link $r2 $d  10Mb 2ms DropTail
$ns queue-limit $r1 $r2 12

# The outage: a drop-everything error model switched on and off, so that
# routing is untouched.
set em [new ErrorModel]
$em unit pkt
$em set rate_ 0.0
$em drop-target [new Agent/Null]
$ns lossmodel $em $r1 $r2
$ns at $down "$em set rate_ 1.0"
$ns at $up "$em set rate_ 0.0"

if {$agent eq "TCP"} {
    set tcp [new Agent/TCP]
} else {
    set tcp [new Agent/TCP/$agent]
}
$tcp set window_ 1000
$tcp set packetSize_ 1000
$tcp set increase_num_ $alpha
$tcp set decrease_num_ $beta
if {$strict ne "default"} {
    $tcp set gaimd_strict_ $strict
}
$ns attach-agent $s $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $d $sink
$ns connect $tcp $sink

set f [open $trfile w]
$tcp attach $f
$tcp trace cwnd_
$tcp trace ssthresh_

set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
$ns at $stop "close $f; exit 0"
$ns run
