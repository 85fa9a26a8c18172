# TcpSink's `last-delivery` (patch 0008). Arguments: sink limit bytes probe, by
# default Agent/TCPSink 3 100000 0. A one-way NewReno agent on s sends an object
# of <bytes> at 1.0 s to a <sink> (Agent/TCPSink or Agent/TCPSink/DelAck) on d over
# s -> r (100 Mb/s, 1 ms) and r -> d (10 Mb/s, 20 ms, DropTail, queue-limit
# <limit>). syn_ is ns-2's default (true): seqno 0 is the SYN. With probe 0 the
# script asks nothing of the patch (stock ns-2 runs it: test_byte_identity), and
# last-delivery is logged as -.
# When the object is acknowledged (`done`) the agent is reset and sends a second
# object 0.5 s later. Every line of events.tsv: name time last-delivery.
#   before   0.5 s, nothing sent yet
#   done1    when the first object's last byte is acknowledged
#   reset    right after both ends are reset
#   done2    when the second object's last byte is acknowledged
# packets.tr: ns-2's trace of r -> d (its `r` lines: packets reaching d).
lassign [concat $argv [lrange {Agent/TCPSink 3 100000 0} [llength $argv] end]] sink_class limit bytes probe
set ns [new Simulator]
set s [$ns node]
set r [$ns node]
set d [$ns node]
$ns duplex-link $s $r 100Mb 1ms DropTail
$ns duplex-link $r $d 10Mb 20ms DropTail
$ns queue-limit $r $d $limit
set tcp [new Agent/TCP/Newreno]
$tcp set packetSize_ 1000
$tcp set window_ 64
set sink [new $sink_class]
$ns attach-agent $s $tcp
$ns attach-agent $d $sink
$ns connect $tcp $sink
set events [open events.tsv w]
proc log {name} {
    global ns sink events probe
    set last [expr {$probe ? [$sink last-delivery] : "-"}]
    puts $events [join [list $name [format %.9f [$ns now]] $last] "\t"]
}
set tr [open packets.tr w]
$ns trace-queue $r $d $tr
set done 0
$tcp proc done {} {
    global ns tcp sink done bytes
    incr done
    log done$done
    if {$done == 1} {
        $tcp reset
        $sink reset
        log reset
        $ns at [expr {[$ns now] + 0.5}] "$tcp send $bytes"
    }
}
$ns at 0.5 "log before"
$ns at 1.0 "$tcp send $bytes"
$ns at 20.0 "close $events; close $tr; exit 0"
$ns run
