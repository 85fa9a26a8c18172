# Benchmark workload: the HTTP object model's connection handling, two ways.
#
#   ns http_connections.tcl new|reset <flows> <duration>
#   ns http_connections.tcl micro <count>
#
# A dumbbell (10 Mb/s 10 ms DropTail bottleneck, queue 800 packets; access links
# 30 Mb/s 45 ms) with <flows> server/client pairs. Each flow sends web objects back
# to back over a one-way TCP (Agent/TCP/Newreno -> Agent/TCPSink), one object per
# connection, with a 0.5 s idle gap after each object is acknowledged (the agent's
# `done` callback). Object sizes: Pareto II, mean 10000 bytes, shape 1.2, redrawn
# until in 1000..2000000, from one RNG stream per flow, so every flow's sequence of
# sizes is the same in both modes whatever the timing.
#
#   new    a fresh agent and sink per object: new, attach-agent, connect; both
#          detached after the object (as tcl/lib/http.tcl did before it kept one
#          pair per flow);
#   reset  one agent and sink per flow, made at its first object; `$tcp reset;
#          $sink reset` before every later one (what tcl/lib/http.tcl does now).
#
# At <duration> it prints, one `key value` a line: objects (completed), bytes (of
# those), started, setup_us (wall microseconds spent starting and closing
# connections, measured with `clock microseconds`).
#
#   micro  times loops of <count> iterations in a fresh simulator (no packets):
#          `new Agent/TCP/Newreno`, `new Agent/TCPSink`, one whole fresh
#          connection (both news, two attach-agent, connect, two detach-agent),
#          and one `$tcp reset; $sink reset`; prints `<name>_us <microseconds per
#          iteration>` lines.

proc usage {} {
    puts stderr "usage: ns http_connections.tcl new|reset <flows> <duration> | micro <count>"
    exit 2
}

set mode [lindex $argv 0]
if {$mode ni {new reset micro}} {
    usage
}

set ns [new Simulator]
ns-random 1
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 50
Agent/TCP set windowInit_ 1

# --- micro-measurement: per-call costs, no simulation ------------------------------
proc per_iteration {count body} {
    uplevel 1 [list set __count $count]
    set start [clock microseconds]
    uplevel 1 "for {set __i 0} {\$__i < \$__count} {incr __i} {$body}"
    return [expr {double([clock microseconds] - $start) / $count}]
}

if {$mode eq "micro"} {
    if {[llength $argv] != 2} {
        usage
    }
    set count [lindex $argv 1]
    set a [$ns node]
    set b [$ns node]
    $ns duplex-link $a $b 10Mb 10ms DropTail
    puts "tcp_new_us [per_iteration $count {new Agent/TCP/Newreno}]"
    puts "sink_new_us [per_iteration $count {new Agent/TCPSink}]"
    puts "connection_us [per_iteration $count {
        set tcp [new Agent/TCP/Newreno]
        set sink [new Agent/TCPSink]
        $ns attach-agent $a $tcp
        $ns attach-agent $b $sink
        $ns connect $tcp $sink
        $ns detach-agent $a $tcp
        $ns detach-agent $b $sink
    }]"
    set tcp [new Agent/TCP/Newreno]
    set sink [new Agent/TCPSink]
    $ns attach-agent $a $tcp
    $ns attach-agent $b $sink
    $ns connect $tcp $sink
    puts "reset_us [per_iteration $count {$tcp reset; $sink reset}]"
    exit 0
}

# --- the simulation -------------------------------------------------------------------
if {[llength $argv] != 3} {
    usage
}
lassign $argv mode flows duration
set IDLE 0.5

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 10ms DropTail
$ns queue-limit $r1 $r2 800
$ns queue-limit $r2 $r1 800
for {set i 0} {$i < $flows} {incr i} {
    set server($i) [$ns node]
    set client($i) [$ns node]
    $ns duplex-link $server($i) $r1 30Mb 45ms DropTail
    $ns duplex-link $r2 $client($i) 30Mb 45ms DropTail
    set rv($i) [new RandomVariable/ParetoII]
    $rv($i) set avg_ 10000
    $rv($i) set shape_ 1.2
    $rv($i) use-rng [new RNG]   ;# each `new RNG` is the next independent stream
}

set objects 0
set bytes_done 0
set started 0
set setup_us 0

proc object_size {i} {
    global rv
    while 1 {
        set bytes [expr {round([$rv($i) value])}]
        if {$bytes >= 1000 && $bytes <= 2000000} {
            return $bytes
        }
    }
}

proc start_object {i} {
    global ns mode server client pair size started setup_us
    set size($i) [object_size $i]
    incr started
    set t0 [clock microseconds]
    if {$mode eq "reset" && [info exists pair($i)]} {
        lassign $pair($i) tcp sink
        $tcp reset
        $sink reset
    } else {
        set tcp [new Agent/TCP/Newreno]
        $tcp set fid_ $i
        set sink [new Agent/TCPSink]
        $ns attach-agent $server($i) $tcp
        $ns attach-agent $client($i) $sink
        $ns connect $tcp $sink
        $tcp proc done {} [list object_done $i $tcp $sink]
        set pair($i) [list $tcp $sink]
    }
    incr setup_us [expr {[clock microseconds] - $t0}]
    $tcp send $size($i)
}

# Called by TcpAgent::finish when the object's last byte is acknowledged.
proc object_done {i tcp sink} {
    global ns mode size objects bytes_done IDLE
    incr objects
    incr bytes_done $size($i)
    if {$mode eq "new"} {
        # Detach after the current event: this runs inside the agent's own receive.
        $ns at [$ns now] [list close_connection $i $tcp $sink]
    }
    $ns at [expr {[$ns now] + $IDLE}] [list start_object $i]
}

proc close_connection {i tcp sink} {
    global ns server client setup_us
    set t0 [clock microseconds]
    $ns detach-agent $server($i) $tcp
    $ns detach-agent $client($i) $sink
    incr setup_us [expr {[clock microseconds] - $t0}]
}

proc finish {} {
    global objects bytes_done started setup_us
    puts "objects $objects"
    puts "bytes $bytes_done"
    puts "started $started"
    puts "setup_us $setup_us"
    exit 0
}

for {set i 0} {$i < $flows} {incr i} {
    $ns at [expr {0.01 * $i}] [list start_object $i]
}
$ns at $duration finish
$ns run
