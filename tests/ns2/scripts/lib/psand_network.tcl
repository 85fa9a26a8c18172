# (lib/: sourced by the scripts, not run alone by test_byte_identity.)
# The network of Alemu's Fig. 2.2 for the PSAND test scripts (sourced, with $ns and
# $qclass set): S1, S2 -> R1 -> 1.5 Mb/s, 20 ms -> R2 -> S3, a 35-packet bottleneck
# of class $qclass in packets with w_q from the link (q_weight_ 0). Sets s1 s2 r1 r2
# s3 and q, the bottleneck queue; psand_flows adds the long-lived FTP/TCP Sack flows.
Queue/DropTail set limit_ 1000

set s1 [$ns node]
set s2 [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set s3 [$ns node]
$ns duplex-link $s1 $r1 10Mb 2ms DropTail
$ns duplex-link $s2 $r1 10Mb 3ms DropTail
$ns simplex-link $r1 $r2 1.5Mb 20ms $qclass
$ns simplex-link $r2 $r1 1.5Mb 20ms DropTail
$ns duplex-link $r2 $s3 10Mb 4ms DropTail
$ns queue-limit $r1 $r2 35

set q [[$ns link $r1 $r2] queue]
$q set queue_in_bytes_ false
$q set bytes_ false
$q set mean_pktsize_ 1000
$q set q_weight_ 0

# n FTP flows over TCP/Sack1 (1000-B packets, window w), from S1 and S2 in turn to S3,
# each started at a time drawn from $rng in [0, 1) s.
proc psand_flows {n w} {
    global ns rng s1 s2 s3
    for {set i 0} {$i < $n} {incr i} {
        set src [expr {$i % 2 == 0 ? $s1 : $s2}]
        set tcp [$ns create-connection TCP/Sack1 $src TCPSink/Sack1 $s3 $i]
        $tcp set window_ $w
        $tcp set packetSize_ 1000
        set ftp [$tcp attach-app FTP]
        $ns at [$rng uniform 0 1] "$ftp start"
    }
}
