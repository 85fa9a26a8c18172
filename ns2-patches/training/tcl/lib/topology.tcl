# Topology (DESIGN.md §2): core routers C0..C(k-1) in a line; per flow a
# source Si on C<enter> and a sink Ri on C<leave> (by default C0 and C(k-1)).
# Node ids follow creation order: core nodes first, then Si, Ri flow by flow.

namespace eval repro {
    variable core {}         ;# core nodes, C0 first
    variable links {}        ;# the traced/monitored simplex links, see add_link
    variable edge_link {}    ;# params of the edge links
    variable core_queue ""   ;# queue of core0, reported in meta.json
    variable core_queues {}  ;# queue of each core link, core0 first, reported in meta.json
    variable core_reverse_queues {}  ;# queue of each core link's reverse direction, likewise
    variable edge_queue ""   ;# queue of the first entry link, reported in meta.json
    variable sink_loss ""    ;# error model spec for the links into sinks ("" for none)
}

proc repro::build_core {ns params} {
    variable core
    variable edge_link
    variable core_queue
    variable core_queues
    variable core_reverse_queues
    variable sink_loss
    set topo [need_object $params "" topology {kind core_nodes core_link edge_link} {core_links sink_loss}]
    set kind [dict get $topo kind]
    if {$kind ni {chain dumbbell}} {
        fail topology.kind "unknown topology kind \"$kind\"" "chain, dumbbell"
    }
    set k [need_number $topo topology core_nodes ">= 2" 1]
    if {$kind eq "dumbbell" && $k != 2} {
        fail topology.core_nodes "a dumbbell has 2 core nodes, not $k" "2 (use kind chain for more)"
    }
    set default_link [need_object $topo topology core_link {bandwidth delay}]
    need_quantity $default_link topology.core_link bandwidth rate
    need_quantity $default_link topology.core_link delay time
    set edge_link [need_edge_link $topo topology edge_link]
    set spec [need_class_spec $params "" core_queue Queue 1]
    # core_reverse_queue: the queue of every core link's reverse direction
    # (router i+1 -> i), by default the forward one's.
    set reverse ""
    if {[dict exists $params core_reverse_queue]} {
        set reverse [need_class_spec $params "" core_reverse_queue Queue 1]
    }
    # core_links: one entry per core link, each overriding core_link's fields
    # and core_queue (its `queue`).
    set per_link {}
    if {[dict exists $topo core_links]} {
        set per_link [dict get $topo core_links]
        if {![string is list $per_link] || [llength $per_link] != $k - 1} {
            fail topology.core_links "not a list of [expr {$k - 1}] links" \
                "one {bandwidth, delay, queue} object per core link (core_nodes - 1)"
        }
    }
    set sink_loss ""
    if {[dict exists $topo sink_loss]} {
        set sink_loss [need_class_spec $topo topology sink_loss ErrorModel]
    }

    for {set i 0} {$i < $k} {incr i} {
        lappend core [$ns node]
    }
    for {set j 0} {$j < $k - 1} {incr j} {
        set link $default_link
        set queue $spec
        set where core_queue
        if {$per_link ne ""} {
            set where topology.core_links\[$j\]
            set own [lindex $per_link $j]
            check_fields $own $where {} {bandwidth delay queue}
            set link [dict merge $link [dict remove $own queue]]
            if {[dict exists $own queue]} {
                set queue [need_class_spec $own $where queue Queue 1]
                set where $where.queue
            }
        }
        set bandwidth [need_quantity $link $where bandwidth rate]
        set delay [need_quantity $link $where delay time]
        set a [lindex $core $j]
        set b [lindex $core $j+1]
        set q [queue_link $ns $a $b $bandwidth $delay $queue $where $reverse core_reverse_queue]
        lappend core_queues $q
        lappend core_reverse_queues [[$ns link $b $a] queue]
        if {$j == 0} {
            set core_queue $q
        }
        add_link core$j $a $b core "" 1
    }
}

# An edge link object (bandwidth, delay, queue spec), checked.
proc repro::need_edge_link {obj where key} {
    set link [need_object $obj $where $key {bandwidth delay queue}]
    set path [join_path $where $key]
    need_quantity $link $path bandwidth rate
    need_quantity $link $path delay time
    need_class_spec $link $path queue Queue 1
    return $link
}

# Creates Si and Ri of flow fid with their edge links, Si on core router
# `enter` and Ri on core router `leave`; `link` is the edge link object.
# Returns {Si Ri}.
proc repro::add_flow_nodes {ns fid enter leave link where} {
    variable core
    variable edge_queue
    variable sink_loss
    set src [$ns node]
    set dst [$ns node]
    set bandwidth [dict get $link bandwidth]
    set delay [dict get $link delay]
    set spec [dict get $link queue]
    set q [queue_link $ns $src [lindex $core $enter] $bandwidth $delay $spec $where.queue]
    queue_link $ns [lindex $core $leave] $dst $bandwidth $delay $spec $where.queue
    if {$edge_queue eq ""} {
        set edge_queue $q
    }
    if {$sink_loss ne ""} {
        # In front of the link's queue; its drops go to the link's drop trace.
        set em [create $sink_loss topology.sink_loss]
        apply_knobs $em $sink_loss topology.sink_loss
        $ns lossmodel $em [lindex $core $leave] $dst
        record_sink_loss $em
    }
    add_link entry$fid $src [lindex $core $enter] entry $fid 0
    add_link exit$fid [lindex $core $leave] $dst exit $fid 0
    return [list $src $dst]
}

# The first sink-side error model, reported in meta.json.
proc repro::record_sink_loss {em} {
    variable sink_loss_model
    if {![info exists sink_loss_model]} {
        set sink_loss_model $em
    }
}

# Records a simplex link the outputs mention: all are traced, core links are
# also monitored.
proc repro::add_link {name from to role fid monitored} {
    variable links
    lappend links [dict create name $name from $from to $to role $role fid $fid monitored $monitored]
}
