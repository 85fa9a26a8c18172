# Flows (DESIGN.md §2): one agent, sink and application per flow, built
# with `new` so that knobs are set before the agents are attached.

namespace eval repro {
    # kind -> base class each role's class must be or derive from
    variable FLOW_KINDS {
        ftp    {agent Agent/TCP sink Agent/TCPSink app Application/FTP}
        pareto {agent Agent/UDP sink Agent app Application/Traffic/Pareto}
        cbr    {agent Agent/UDP sink Agent app Application/Traffic/CBR}
        exponential {agent Agent/UDP sink Agent app Application/Traffic/Exponential}
        http   {agent Agent/TCP sink Agent/TCPSink}
    }
    # http flows: the object model's fields (see http.tcl).
    variable HTTP_FIELDS {mean_bytes shape min_bytes max_bytes bound idle}
    # Agent knobs that attach-agent and connect overwrite.
    variable ATTACHED {
        agent_addr_ "attach-agent sets it" agent_port_ "attach-agent sets it"
        dst_addr_ "connect sets it" dst_port_ "connect sets it"
    }
    variable flows {}   ;# one dict per flow: fid kind start stop src dst agent sink app
}

# Checks every flow and makes its agents with their knobs; place_flows then puts
# them on nodes. Two steps so that a wireless run's flows are checked before its
# first node exists (ns-2 prints a line of its own then, after which a bad
# parameter would no longer be the one line on stderr).
proc repro::build_flows {ns params duration} {
    set list [dict get $params flows]
    if {![string is list $list] || [llength $list] == 0} {
        fail flows "not a non-empty list" "a list of flow objects"
    }
    set i 0
    foreach flow $list {
        build_flow $ns $flow "flows\[$i\]" $duration
        incr i
    }
}

# Each flow's source and sink node (made with their edge links on a wired
# topology, two of the mobile nodes on a wireless one), its agents attached and
# connected.
proc repro::place_flows {ns} {
    variable flows
    variable wireless_nodes
    set placed {}
    foreach flow $flows {
        set place [dict get $flow place]
        if {[lindex $place 0] eq "wireless"} {
            lassign $place - source sink
            set src [lindex $wireless_nodes $source]
            set dst [lindex $wireless_nodes $sink]
        } else {
            lassign $place - enter leave link link_where
            lassign [add_flow_nodes $ns [dict get $flow fid] $enter $leave $link $link_where] src dst
        }
        if {[dict get $flow kind] ne "http"} {
            # http flows attach an agent pair per object (http.tcl).
            $ns attach-agent $src [dict get $flow agent]
            $ns attach-agent $dst [dict get $flow sink]
            $ns connect [dict get $flow agent] [dict get $flow sink]
            [dict get $flow app] attach-agent [dict get $flow agent]
        }
        lappend placed [dict merge $flow [dict create src $src dst $dst]]
    }
    set flows $placed
}

proc repro::build_flow {ns flow where duration} {
    variable FLOW_KINDS
    variable ATTACHED
    variable flows
    variable core
    check_fields $flow $where {fid kind start agent sink} \
        {app group enter leave edge_link http source_node sink_node stop}
    set fid [need_number $flow $where fid ">= 1" 1]
    foreach other $flows {
        if {[dict get $other fid] == $fid} {
            fail $where.fid "fid $fid is used twice" "a positive integer no other flow uses"
        }
    }
    set kind [dict get $flow kind]
    if {![dict exists $FLOW_KINDS $kind]} {
        fail $where.kind "unknown flow kind \"$kind\"" [join [lsort [dict keys $FLOW_KINDS]] ", "]
    }
    set start [need_number $flow $where start ">= 0"]
    if {$start >= $duration} {
        fail $where.start "starts at $start, not before the end of the run" "0 <= start < duration ($duration)"
    }
    set stop ""
    if {[dict exists $flow stop]} {
        set stop [need_number $flow $where stop "> 0"]
        if {$stop <= $start || $stop > $duration} {
            fail $where.stop "stops at $stop" "start ($start) < stop <= duration ($duration)"
        }
        if {$kind eq "http"} {
            fail $where.stop "not a field of an http flow" "stop on ftp, pareto, cbr and exponential flows"
        }
    }
    foreach {role base} [dict get $FLOW_KINDS $kind] {
        if {![dict exists $flow $role]} {
            fail $where.$role "missing required field" "a $kind flow has [join [dict keys [dict get $FLOW_KINDS $kind]] {, }]"
        }
        set spec($role) [need_class_spec $flow $where $role $base]
    }
    foreach role {app http} {
        if {[dict exists $flow $role]} {
            set wanted [expr {$role eq "http" ? $kind eq "http" : $kind ne "http"}]
            if {!$wanted} {
                fail $where.$role "not a field of a $kind flow" \
                    "http flows have http (and no app); other flows have app"
            }
        }
    }
    set http ""
    if {$kind eq "http"} {
        variable HTTP_FIELDS
        if {![dict exists $flow http]} {
            fail $where.http "missing required field" "an http flow has http: {[join $HTTP_FIELDS {, }]}"
        }
        set http [need_http $flow $where.http]
    }

    if {[llength $core] == 0} {
        set place [wireless_place $flow $where]
    } else {
        set place [wired_place $flow $where]
    }
    set group [expr {[dict exists $flow group] ? [dict get $flow group] : ""}]

    if {$kind eq "http"} {
        # The objects' agents are made one per object (http.tcl); these unattached
        # templates check the knobs now and show them in meta.json.
        set agent [create $spec(agent) $where.agent]
        apply_knobs $agent $spec(agent) $where.agent [http_reserved]
        $agent set fid_ $fid
        set sink [create $spec(sink) $where.sink]
        apply_knobs $sink $spec(sink) $where.sink $ATTACHED
        lappend flows [dict create fid $fid kind $kind start $start place $place src "" dst "" \
                           agent $agent sink $sink app "" group $group \
                           http [dict merge $http [dict create agent_spec $spec(agent) sink_spec $spec(sink)]]]
        return
    }
    set agent [create $spec(agent) $where.agent]
    set reserved [dict merge $ATTACHED {fid_ "it is the flow's fid" class_ "it is fid_ under another name"}]
    apply_knobs $agent $spec(agent) $where.agent $reserved
    # fid_ is the flow id in the traces.
    $agent set fid_ $fid
    set sink [create $spec(sink) $where.sink]
    apply_knobs $sink $spec(sink) $where.sink $ATTACHED
    set app [create $spec(app) $where.app]
    apply_knobs $app $spec(app) $where.app
    lappend flows [dict create fid $fid kind $kind start $start stop $stop place $place src "" dst "" \
                       agent $agent sink $sink app $app group $group]
}

# Where a wired flow's source and sink go: {wired enter leave link link_where},
# the core routers it enters and leaves at (by default the first and the last)
# and its edge link.
proc repro::wired_place {flow where} {
    variable core
    variable edge_link
    foreach key {source_node sink_node} {
        if {[dict exists $flow $key]} {
            fail $where.$key "not a field of a flow on a wired topology" "enter, leave (core routers)"
        }
    }
    set last [expr {[llength $core] - 1}]
    set enter 0
    set leave $last
    if {[dict exists $flow enter]} {
        set enter [need_number $flow $where enter ">= 0" 1]
    }
    if {[dict exists $flow leave]} {
        set leave [need_number $flow $where leave ">= 0" 1]
    }
    # enter > leave: a reverse flow, e.g. cross traffic against the data.
    if {$enter == $leave || max($enter, $leave) > $last} {
        fail $where "enters at core router $enter and leaves at $leave" \
            "enter != leave, both in 0..$last (the core routers; enter > leave for a reverse flow)"
    }
    set link $edge_link
    set link_where topology.edge_link
    if {[dict exists $flow edge_link]} {
        set link [need_edge_link $flow $where edge_link]
        set link_where $where.edge_link
    }
    return [list wired $enter $leave $link $link_where]
}

# Where a wireless flow's source and sink go: {wireless source sink}, two of the
# mobile nodes (by number; they need not exist yet).
proc repro::wireless_place {flow where} {
    foreach key {enter leave edge_link} {
        if {[dict exists $flow $key]} {
            fail $where.$key "not a field of a flow on a wireless topology" "source_node, sink_node"
        }
    }
    foreach key {source_node sink_node} {
        if {![dict exists $flow $key]} {
            fail $where.$key "missing required field" "a flow on a wireless topology names its two nodes"
        }
    }
    set src [wireless_node $flow $where source_node]
    set dst [wireless_node $flow $where sink_node]
    if {$src == $dst} {
        fail $where "source_node and sink_node are the same node" "two different nodes"
    }
    return [list wireless $src $dst]
}

proc repro::create {spec where} {
    set cls [dict get $spec class]
    if {[catch {new $cls} obj]} {
        fail $where.class "ns-2 cannot create a $cls ($obj)" "classes ns-2 can instantiate"
    }
    return $obj
}

# Scheduled last so that meta.json, written at time 0, sees the objects as
# they are before any traffic.
proc repro::start_flows {ns} {
    variable flows
    foreach flow $flows {
        if {[dict get $flow kind] eq "http"} {
            $ns at [dict get $flow start] [list repro::http_object $ns $flow]
        } else {
            $ns at [dict get $flow start] [list [dict get $flow app] start]
            if {[dict get $flow stop] ne ""} {
                $ns at [dict get $flow stop] [list [dict get $flow app] stop]
            }
        }
    }
}
