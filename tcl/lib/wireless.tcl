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
#
# Optional: topology.phy, knobs of every node's own radio interface (e.g. Pt_,
# a shorter range); topology.loss, an ErrorModel on every node above its MAC
# (a random loss 802.11's retries cannot repair), its drops in drops.tr as
# `LL LOSS` lines (ns2-patches/0024).

namespace eval repro {
    variable wireless_nodes {}   ;# the mobile nodes, node 0 first
    variable wireless_ifqs {}    ;# each node's interface queue, node 0's first
    variable wireless_macs {}    ;# each node's MAC
    variable wireless_phys {}    ;# each node's radio interface (netif_(0))
    variable wireless_losses {}  ;# each node's topology.loss model, if any
    variable wireless_routing "" ;# the routing protocol
    variable wireless_spec {}    ;# the checked topology (check_wireless)
    variable wireless_count 0    ;# the number of mobile nodes
    # Routing protocols whose agent drives a Queue/DropTail/PriQueue IFQ (they call
    # its filter()). DSR needs CMUPriQueue, which is no Queue, and TORA needs IMEP.
    variable ROUTINGS {AODV DSDV}
    # Phy/WirelessPhy's knobs ns-2 reads from the object itself whenever it sends
    # (Pt_) or receives (the thresholds, the system loss L_), so they can be set
    # on each node's own interface after the node is made, as the MAC's are. Not
    # these: freq_ is read once, by the constructor (the wavelength), and
    # bandwidth_ is a class default nothing binds. The channel's carrier-sense
    # culling distance comes from the first sender's Pt_ and CSThresh_ at the
    # first transmission, after the knobs are set; all nodes get the same ones.
    variable PHY_KNOBS {CPThresh_ CSThresh_ L_ Pt_ RXThresh_}
    # topology.loss knobs that would keep it from dropping what it corrupts.
    variable LOSS_RESERVED {
        markecn_ "topology.loss drops what it corrupts (no ECN marks)"
        delay_pkt_ "topology.loss drops what it corrupts (no delays)"
    }
    # The drop reason of topology.loss, on a CMU drop trace of layer LL (ns2-patches/0024).
    variable LOSS_REASON LOSS
}

proc repro::is_wireless {params} {
    expr {[dict exists $params topology kind] && [dict get $params topology kind] eq "wireless"}
}

# Every wireless parameter, checked before any node exists (after the first one,
# ns-2 prints a line of its own and an error would not be the only line): the
# tracks, the MAC's, the interface queue's and topology.loss's knobs on a probe
# object, topology.phy's by name and value.
proc repro::check_wireless {params} {
    variable wireless_spec
    variable wireless_count
    variable ROUTINGS
    variable PHY_KNOBS
    variable LOSS_RESERVED
    set topo [need_object $params "" topology {kind area tracks routing mac} {radio_range phy loss}]
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
    # No probe for the radio: a WirelessPhy starts a timer when it is made, which
    # would fire on the deleted object, and takes an interface number from the
    # nodes'. Its knobs are checked by name and value here, and read back on each
    # node's interface (apply_knobs) when it is built.
    set phy {}
    if {[dict exists $topo phy]} {
        set phy [need_class_spec $topo topology phy Phy/WirelessPhy]
        if {[dict get $phy class] ne "Phy/WirelessPhy"} {
            fail topology.phy.class "the nodes' interface is a Phy/WirelessPhy" Phy/WirelessPhy
        }
        dict for {knob value} [dict get $phy knobs] {
            if {$knob ni $PHY_KNOBS} {
                set why [expr {$knob eq "freq_" ? "read only when the interface is made (its wavelength)" : "not a knob ns-2 reads per node"}]
                fail topology.phy.knobs.$knob "$why" [join $PHY_KNOBS {, }]
            }
            need_number [dict get $phy knobs] topology.phy.knobs $knob "> 0"
        }
    }
    set loss {}
    if {[dict exists $topo loss]} {
        set loss [need_class_spec $topo topology loss ErrorModel]
        if {[dict exists $loss knobs rate_]} {
            set rate [need_number [dict get $loss knobs] topology.loss.knobs rate_ ">= 0"]
            if {$rate > 1} {
                fail topology.loss.knobs.rate_ "$rate is not a probability" "0 ..= 1 (the share of packets lost)"
            }
        }
        set probe [create $loss topology.loss]
        apply_knobs $probe $loss topology.loss $LOSS_RESERVED
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
    set wireless_spec [dict create routing $routing mac $mac ifq $ifq phy $phy loss $loss area $area tracks $tracks]
    set wireless_count [llength $tracks]
}

# The nodes of a checked wireless topology (check_wireless), their knobs applied
# and their moves scheduled; drops is the channel ns-2 traces their drops to.
proc repro::build_wireless {ns drops} {
    variable wireless_spec
    variable wireless_nodes
    variable wireless_ifqs
    variable wireless_macs
    variable wireless_phys
    variable wireless_losses
    variable wireless_routing
    variable core_queue
    dict with wireless_spec {}
    lassign $area max_x max_y
    set wireless_routing $routing
    $ns trace-all $drops
    # Stock AODV traces the packets it pulls out of an interface queue after a
    # link broke as CBK, like the one packet the MAC gave up on; with this they
    # read FIL (ns2-patches/0023), so drops.tr tells the two causes apart. Only
    # the reason changes. A class default: the agents are made with the nodes.
    Agent/AODV set purge_filter_ 1
    set ranvar ""
    if {[llength $loss]} {
        # Its own stream, so that the loss draws leave the default RNG's (802.11's
        # backoff, routing jitter) alone: a new RNG takes the next stream of the
        # package seed, which the run's seed set ($defaultRNG seed).
        set ranvar [new RandomVariable/Uniform]
        $ranvar use-rng [new RNG]
    }
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
        # The node's own IFQ, MAC and radio get the knobs (dataRate_ and Pt_ are
        # bound per object and read when used).
        apply_knobs [$node set ifq_(0)] $ifq core_queue
        apply_knobs [$node set mac_(0)] $mac topology.mac
        if {[llength $phy]} {
            apply_knobs [$node set netif_(0)] $phy topology.phy
        }
        if {[llength $loss]} {
            lappend wireless_losses [add_loss $node $loss $ranvar]
        }
        lappend wireless_nodes $node
        lappend wireless_ifqs [$node set ifq_(0)]
        lappend wireless_macs [$node set mac_(0)]
        lappend wireless_phys [$node set netif_(0)]
    }
    set core_queue [lindex $wireless_ifqs 0]
}

# topology.loss on one node: the model between its link layer and its entry,
# where the MAC hands up what it received (and acknowledged), so a loss here is
# one 802.11's retries cannot repair and TCP sees. Every packet that goes up
# crosses it: data, ACKs and routing packets (the thesis's wireless random loss
# hits any frame); ARP never does (LL gives ARP to its ARP table before the
# up-target). Its drops go to the node's drop trace as layer LL, reason LOSS.
proc repro::add_loss {node spec ranvar} {
    variable LOSS_REASON
    variable LOSS_RESERVED
    set em [create $spec topology.loss]
    apply_knobs $em $spec topology.loss $LOSS_RESERVED
    $em unit pkt
    $em ranvar $ranvar
    $em drop-reason $LOSS_REASON
    $em drop-target [$node mobility-trace Drop LL]
    set ll [$node set ll_(0)]
    $em target [$ll up-target]
    $ll up-target $em
    return $em
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
