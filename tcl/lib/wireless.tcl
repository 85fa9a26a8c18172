# Wireless topology (DESIGN.md §2, topology kind `wireless`): 802.11 mobile
# nodes on a flat grid, every node a router of an ad hoc routing protocol, every
# node's interface queue (IFQ) of class core_queue. Node i is ns-2 node i; its
# initial position and its `setdest` moves come resolved in topology.tracks
# (experiments/mobility.py draws random-waypoint tracks from the run's seed).
#
# ns-2 wants its trace channel before the first mobile node: the nodes' drop
# targets (IFQ overflow, no route, ARP, MAC) are CMU traces on it. With agent,
# router, MAC and movement tracing off, only those drop lines reach it:
# drops.tr (DESIGN.md §4.1).

namespace eval repro {
    variable wireless_nodes {}   ;# the mobile nodes, node 0 first
    variable wireless_ifqs {}    ;# each node's interface queue, node 0's first
    variable wireless_macs {}    ;# each node's MAC
    variable wireless_routing "" ;# the routing protocol
    variable wireless_spec {}    ;# the checked topology (check_wireless)
    variable wireless_count 0    ;# the number of mobile nodes
    # Routing protocols whose agent drives a Queue/DropTail/PriQueue IFQ (they call
    # its filter()). DSR needs CMUPriQueue, which is no Queue, and TORA needs IMEP.
    variable ROUTINGS {AODV DSDV}
}

proc repro::is_wireless {params} {
    expr {[dict exists $params topology kind] && [dict get $params topology kind] eq "wireless"}
}

# Every wireless parameter, checked before any node exists (after the first one,
# ns-2 prints a line of its own and an error would not be the only line): the
# tracks, and the MAC's and the interface queue's knobs on a probe object.
proc repro::check_wireless {params} {
    variable wireless_spec
    variable wireless_count
    variable ROUTINGS
    set topo [need_object $params "" topology {kind area tracks routing mac} {radio_range}]
    set area [dict get $topo area]
    if {![string is list $area] || [llength $area] != 2} {
        fail topology.area "not a list of two numbers" "\[x, y\]: the grid's size in metres"
    }
    lassign $area max_x max_y
    need_number [dict create x $max_x] topology.area x "> 0"
    need_number [dict create y $max_y] topology.area y "> 0"
    set routing [dict get $topo routing]
    if {$routing ni $ROUTINGS} {
        fail topology.routing "unknown or unsupported routing \"$routing\"" \
            "[join $ROUTINGS {, }] (DSR needs CMUPriQueue, no Queue; TORA needs IMEP)"
    }
    set mac [need_class_spec $topo topology mac Mac/802_11]
    set ifq [need_class_spec $params "" core_queue Queue/DropTail/PriQueue]
    foreach {spec where} [list $mac topology.mac $ifq core_queue] {
        set probe [create $spec $where]
        apply_knobs $probe $spec $where
        delete $probe
    }
    set tracks [dict get $topo tracks]
    if {![string is list $tracks] || [llength $tracks] < 2} {
        fail topology.tracks "not a list of at least two node tracks" "one {x, y, moves} object per node"
    }
    set i 0
    foreach track $tracks {
        set where topology.tracks\[$i\]
        check_fields $track $where {x y moves}
        foreach axis {x y} limit [list $max_x $max_y] {
            set value [need_number $track $where $axis ">= 0"]
            if {$value > $limit} {
                fail $where.$axis "$value lies outside the grid" "0 ..= $limit (topology.area)"
            }
        }
        check_moves [dict get $track moves] $where.moves $max_x $max_y
        incr i
    }
    set wireless_spec [dict create routing $routing mac $mac ifq $ifq area $area tracks $tracks]
    set wireless_count [llength $tracks]
}

# The nodes of a checked wireless topology (check_wireless), their knobs applied
# and their moves scheduled; drops is the channel ns-2 traces their drops to.
proc repro::build_wireless {ns drops} {
    variable wireless_spec
    variable wireless_nodes
    variable wireless_ifqs
    variable wireless_macs
    variable wireless_routing
    variable core_queue
    dict with wireless_spec {}
    lassign $area max_x max_y
    set wireless_routing $routing
    $ns trace-all $drops
    set grid [new Topography]
    $grid load_flatgrid $max_x $max_y
    create-god [llength $tracks]
    $ns node-config -adhocRouting $routing -llType LL -macType [dict get $mac class] \
        -ifqType [dict get $ifq class] -ifqLen 50 -antType Antenna/OmniAntenna \
        -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
        -channel [new Channel/WirelessChannel] -topoInstance $grid \
        -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
    foreach track $tracks {
        set node [$ns node]
        $node random-motion 0
        $node set X_ [dict get $track x]
        $node set Y_ [dict get $track y]
        $node set Z_ 0.0
        foreach move [dict get $track moves] {
            lassign $move t x y speed
            $ns at $t [list $node setdest $x $y $speed]
        }
        # The node's own IFQ and MAC get the knobs (dataRate_ is bound per object).
        apply_knobs [$node set ifq_(0)] $ifq core_queue
        apply_knobs [$node set mac_(0)] $mac topology.mac
        lappend wireless_nodes $node
        lappend wireless_ifqs [$node set ifq_(0)]
        lappend wireless_macs [$node set mac_(0)]
    }
    set core_queue [lindex $wireless_ifqs 0]
}

# moves: [[t, x, y, speed], ...], each a `setdest` at time t.
proc repro::check_moves {moves where max_x max_y} {
    if {![string is list $moves]} {
        fail $where "not a list" "\[\[t, x, y, speed\], ...\]"
    }
    set j 0
    foreach move $moves {
        if {[llength $move] != 4} {
            fail $where\[$j\] "not \[t, x, y, speed\]" "four numbers"
        }
        lassign $move t x y speed
        set fields [dict create t $t x $x y $y speed $speed]
        need_number $fields $where\[$j\] t ">= 0"
        need_number $fields $where\[$j\] speed "> 0"
        # MobileNode::set_destination refuses a point on the grid's edge.
        foreach axis {x y} limit [list $max_x $max_y] {
            set value [need_number $fields $where\[$j\] $axis "> 0"]
            if {$value >= $limit} {
                fail $where\[$j\].$axis "$value is not inside the grid" "0 < $axis < $limit (topology.area)"
            }
        }
        incr j
    }
}

# The number of the mobile node a flow's source or sink sits on.
proc repro::wireless_node {flow where key} {
    variable wireless_count
    set last [expr {$wireless_count - 1}]
    set i [need_number $flow $where $key ">= 0" 1]
    if {$i > $last} {
        fail $where.$key "node $i does not exist" "0..$last (topology.tracks)"
    }
    return $i
}
