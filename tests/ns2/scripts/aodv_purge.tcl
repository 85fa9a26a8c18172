# A route that breaks while packets are queued for it (ns2-patches/0023): three
# 802.11 nodes in a line at y = 250, x = 10, 210, 410 (ns-2's default radio
# reaches 250 m: 0 and 2 hear only 1), AODV, PriQueue interface queues of 50.
# A CBR flow 0 -> 2 (512-byte packets, 800 kb/s, more than the two hops carry,
# so node 0's queue holds packets for node 1) from 1 s; at 8 s node 1 leaves
# for (210, 490) at 100 m/s, out of both neighbours' range. Used by
# tests/ns2/test_aodv_purge.py.
#
#   ns aodv_purge.tcl ?purge? ?outdir?
#
# purge: "" leaves Agent/AODV's purge_filter_ alone; 0 or 1 sets it before the
# nodes are made. Writes outdir/out.tr: with agent, router, MAC and movement
# tracing off, the nodes' CMU drop lines only, as the driver's drops.tr.
# With no arguments: stock ns-2 (test_byte_identity.py runs it on our ns and
# Debian's).

set args {"" .}
set args [concat $argv [lrange $args $argc end]]
foreach {purge outdir} $args break

set ns [new Simulator]
$defaultRNG seed 5
set tr [open $outdir/out.tr w]
$ns trace-all $tr
if {$purge ne ""} {
    Agent/AODV set purge_filter_ $purge
}

set grid [new Topography]
$grid load_flatgrid 500 500
create-god 3
$ns node-config -adhocRouting AODV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channel [new Channel/WirelessChannel] -topoInstance $grid \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
foreach i {0 1 2} {
    set n($i) [$ns node]
    $n($i) random-motion 0
    $n($i) set X_ [expr {10 + 200 * $i}]
    $n($i) set Y_ 250.0
    $n($i) set Z_ 0.0
}
$ns at 8.0 "$n(1) setdest 210 490 100"

set udp [new Agent/UDP]
$ns attach-agent $n(0) $udp
set null [new Agent/Null]
$ns attach-agent $n(2) $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 512
$cbr set rate_ 800kb
$ns at 1.0 "$cbr start"

$ns at 12.0 "$ns flush-trace; close $tr; exit 0"
$ns run
