# Flows (DESIGN.md §2): one agent, sink and application per flow, built
# with `new` so that knobs are set before the agents are attached.

namespace eval repro {
    # kind -> base class each role's class must be or derive from
    variable FLOW_KINDS {
        ftp    {agent Agent/TCP sink Agent/TCPSink app Application/FTP}
        pareto {agent Agent/UDP sink Agent app Application/Traffic/Pareto}
        cbr    {agent Agent/UDP sink Agent app Application/Traffic/CBR}
    }
    # Agent knobs that attach-agent and connect overwrite.
    variable ATTACHED {
        agent_addr_ "attach-agent sets it" agent_port_ "attach-agent sets it"
        dst_addr_ "connect sets it" dst_port_ "connect sets it"
    }
    variable flows {}   ;# one dict per flow: fid kind start src dst agent sink app
}

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

proc repro::build_flow {ns flow where duration} {
    variable FLOW_KINDS
    variable ATTACHED
    variable flows
    check_fields $flow $where {fid kind start agent sink app}
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
    foreach {role base} [dict get $FLOW_KINDS $kind] {
        set spec($role) [need_class_spec $flow $where $role $base]
    }

    lassign [add_flow_nodes $ns $fid] src dst
    set agent [create $spec(agent) $where.agent]
    set reserved [dict merge $ATTACHED {fid_ "it is the flow's fid" class_ "it is fid_ under another name"}]
    apply_knobs $agent $spec(agent) $where.agent $reserved
    # fid_ is the flow id in the traces.
    $agent set fid_ $fid
    $ns attach-agent $src $agent
    set sink [create $spec(sink) $where.sink]
    apply_knobs $sink $spec(sink) $where.sink $ATTACHED
    $ns attach-agent $dst $sink
    $ns connect $agent $sink
    set app [create $spec(app) $where.app]
    apply_knobs $app $spec(app) $where.app
    $app attach-agent $agent
    lappend flows [dict create fid $fid kind $kind start $start src $src dst $dst \
                       agent $agent sink $sink app $app]
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
        $ns at [dict get $flow start] [list [dict get $flow app] start]
    }
}
