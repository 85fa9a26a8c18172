# One TCP transfer over a small wired link with hand-picked losses: the senders'
# recovery counters (ns2-patches/0022) and the BQM sender's early retransmit and
# wireless ssthresh (0011). Used by tests/ns2/test_tcp_counters.py and
# tests/ns2/test_bqm_early.py.
#
#   ns tcp_recovery.tcl ?sender? ?sink? ?drops? ?knobs? ?report? ?stop? ?outdir?
#
# S (node 0) -> D (node 1): 1 Mb/s, 20 ms, a 100-packet DropTail buffer, so a
# window of 40 never overflows it; D -> S carries the ACKs. 500-byte packets,
# window_ 40, FTP from 0.1 s.
# sender: Newreno (Agent/TCP/Newreno), Reno, Sack1, Tahoe (Agent/TCP) or BQM
# (Agent/TCP/Newreno/BQM). sink: TCPSink, Sack1 (Agent/TCPSink/Sack1) or BQM
# (Agent/TCPSink/BQM).
# drops: the numbers of the packets an ErrorModel/List at the head of S -> D
# drops (0 is the first packet S sends, retransmissions count), into the link's
# drop trace; "" drops nothing. Until the first loss, packet n is seqno n.
# knobs: "name value" pairs set on the sender (and on a BQM sink where it has
# the knob, e.g. pattern_).
# report: sender variables printed at the end, a "name value" line each.
# Writes outdir/out.tr (trace-all), with the BQM sender outdir/sender.tsv (its
# bqm-log); prints "start ssthresh_ <value>" at 0.05 s.
# With no arguments: stock NewReno losing packet 16, reporting stock counters: a
# stock-feature script (test_byte_identity.py runs it on our ns and Debian's).

set args {Newreno TCPSink 16 {} {nrexmit_ nrexmitpack_ ncwndcuts_} 10.0 .}
set args [concat $argv [lrange $args $argc end]]
foreach {sender sink drops knobs report stop outdir} $args break

set ns [new Simulator]
set tr [open $outdir/out.tr w]
$ns trace-all $tr

set s [$ns node]
set d [$ns node]
$ns duplex-link $s $d 1Mb 20ms DropTail
$ns queue-limit $s $d 100

if {[llength $drops]} {
    set em [new ErrorModel/List]
    $em droplist $drops
    $ns lossmodel $em $s $d
}

set tcp [new [dict get {Newreno Agent/TCP/Newreno Reno Agent/TCP/Reno Sack1 Agent/TCP/Sack1
                        Tahoe Agent/TCP BQM Agent/TCP/Newreno/BQM} $sender]]
set snk [new [dict get {TCPSink Agent/TCPSink Sack1 Agent/TCPSink/Sack1 BQM Agent/TCPSink/BQM} $sink]]
foreach {name value} $knobs {
    $tcp set $name $value
    if {$sink eq "BQM" && ![catch {$snk set $name}]} {
        $snk set $name $value
    }
}
$tcp set fid_ 1
$tcp set packetSize_ 500
$tcp set window_ 40
$ns attach-agent $s $tcp
$ns attach-agent $d $snk
$ns connect $tcp $snk
set logs {}
if {$sender eq "BQM"} {
    set f [open $outdir/sender.tsv w]
    $tcp bqm-log $f
    lappend logs $f
}
set ftp [$tcp attach-app FTP]
$ns at 0.1 "$ftp start"
$ns at 0.05 {puts "start ssthresh_ [$tcp set ssthresh_]"}

proc finish {} {
    global ns tr logs tcp report
    $ns flush-trace
    close $tr
    foreach f $logs {
        close $f
    }
    foreach name $report {
        puts "$name [$tcp set $name]"
    }
    exit 0
}
$ns at $stop finish
$ns run
