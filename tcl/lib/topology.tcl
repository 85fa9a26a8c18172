# Topology (DESIGN.md §2): core routers C0..C(k-1) in a line; per flow a
# source Si on C0 and a sink Ri on C(k-1). Node ids follow creation order:
# core nodes first, then Si, Ri flow by flow.

namespace eval repro {
    variable core {}         ;# core nodes, C0 first
    variable links {}        ;# the traced/monitored simplex links, see add_link
    variable edge_link {}    ;# params of the edge links
    variable core_queue ""   ;# queue of core0, reported in meta.json
    variable edge_queue ""   ;# queue of the first entry link, reported in meta.json
}

proc repro::build_core {ns params} {
    variable core
    variable edge_link
    variable core_queue
    set topo [need_object $params "" topology {kind core_nodes core_link edge_link}]
    set kind [dict get $topo kind]
    if {$kind ni {chain dumbbell}} {
        fail topology.kind "unknown topology kind \"$kind\"" "chain, dumbbell"
    }
    set k [need_number $topo topology core_nodes ">= 2" 1]
    if {$kind eq "dumbbell" && $k != 2} {
        fail topology.core_nodes "a dumbbell has 2 core nodes, not $k" "2 (use kind chain for more)"
    }
    set link [need_object $topo topology core_link {bandwidth delay}]
    set bandwidth [need_quantity $link topology.core_link bandwidth rate]
    set delay [need_quantity $link topology.core_link delay time]
    set edge_link [need_object $topo topology edge_link {bandwidth delay queue}]
    need_quantity $edge_link topology.edge_link bandwidth rate
    need_quantity $edge_link topology.edge_link delay time
    need_class_spec $edge_link topology.edge_link queue Queue 1
    set spec [need_class_spec $params "" core_queue Queue 1]

    for {set i 0} {$i < $k} {incr i} {
        lappend core [$ns node]
    }
    for {set j 0} {$j < $k - 1} {incr j} {
        set a [lindex $core $j]
        set b [lindex $core $j+1]
        set q [queue_link $ns $a $b $bandwidth $delay $spec core_queue]
        if {$j == 0} {
            set core_queue $q
        }
        add_link core$j $a $b core "" 1
    }
}

# Creates Si and Ri of flow fid with their edge links; returns {Si Ri}.
proc repro::add_flow_nodes {ns fid} {
    variable core
    variable edge_link
    variable edge_queue
    set src [$ns node]
    set dst [$ns node]
    set bandwidth [dict get $edge_link bandwidth]
    set delay [dict get $edge_link delay]
    set spec [dict get $edge_link queue]
    set q [queue_link $ns $src [lindex $core 0] $bandwidth $delay $spec topology.edge_link.queue]
    queue_link $ns [lindex $core end] $dst $bandwidth $delay $spec topology.edge_link.queue
    if {$edge_queue eq ""} {
        set edge_queue $q
    }
    add_link entry$fid $src [lindex $core 0] entry $fid 0
    add_link exit$fid [lindex $core end] $dst exit $fid 0
    return [list $src $dst]
}

# Records a simplex link the outputs mention: all are traced, core links are
# also monitored.
proc repro::add_link {name from to role fid monitored} {
    variable links
    lappend links [dict create name $name from $from to $to role $role fid $fid monitored $monitored]
}
