# Alemu's Ch. 4 bottleneck in small (patches 0015-0017): n FTP/NewReno flows of
# 1000-byte packets (window 20) from S_i over r1 -> r2 (1.5 Mb/s, 20 ms, a
# buffer of 35 packets) to D_i; access links 10 Mb/s, 2 ms; ACKs back over
# r2 -> r1 (DropTail). Flow i starts at 0.1 i s. Used by tests/ns2/test_blue.py,
# test_lred.py and test_vq_alpha.py.
#
#   ns aqm_dumbbell.tcl ?queue? ?flows? ?stop? ?knobs? ?sample? ?seed?
#
# queue: the bottleneck's Queue/ class; knobs: a Tcl list of "name value" set
# on it before the run; sample: a Tcl list of the queue's variables printed
# every 10.0003 ms (odd instants, so that no packet event shares one) to
# samples.tsv ("time var value", %.17g). For Queue/LRED, periods.tsv is its
# period-log. Writes out.tr: the bottleneck's trace (+ - d). With no arguments
# stock Queue/Vq with its defaults (alpha 0.15), so that Debian's ns runs it too
# (tests/ns2/test_byte_identity.py: the patched Vq is byte-identical).
set args {Vq 4 20.0 {} {} 1}
set args [concat $argv [lrange $args $argc end]]
foreach {queue n stop knobs sample seed} $args break

set ns [new Simulator]
ns-random $seed
set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 1.5Mb 20ms $queue
$ns simplex-link $r2 $r1 1.5Mb 20ms DropTail
$ns queue-limit $r1 $r2 35
$ns queue-limit $r2 $r1 1000
set q [[$ns link $r1 $r2] queue]
foreach {name value} $knobs {
    $q set $name $value
}
set tr [open out.tr w]
$ns trace-queue $r1 $r2 $tr
set logs [list $tr]
if {$queue eq "LRED"} {
    set pl [open periods.tsv w]
    $q period-log $pl
    lappend logs $pl
}
if {$sample ne ""} {
    set sf [open samples.tsv w]
    lappend logs $sf
    proc sample {t} {
        global ns q sample sf stop
        foreach var $sample {
            puts $sf "$t $var [format %.17g [$q set $var]]"
        }
        set next [expr $t + 0.0100003]
        if {$next < $stop} {
            $ns at $next "sample $next"
        }
    }
    $ns at 0.0100003 "sample 0.0100003"
}
for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb 2ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 2ms DropTail
    $ns queue-limit $s($i) $r1 1000
    set tcp($i) [$ns create-connection TCP/Newreno $s($i) TCPSink $d($i) $i]
    $tcp($i) set window_ 20
    $tcp($i) set packetSize_ 1000
    set ftp [$tcp($i) attach-app FTP]
    $ns at [expr 0.1 * $i] "$ftp start"
}
proc finish {} {
    global ns logs
    $ns flush-trace
    foreach c $logs {
        close $c
    }
    exit 0
}
$ns at $stop finish
$ns run
