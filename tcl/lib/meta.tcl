# meta.json (DESIGN.md §3): the nodes, links and flows the outputs refer to,
# and every knob in force.

package require json::write

proc repro::write_meta {file} {
    variable core
    variable links
    variable flows
    variable core_queue
    variable core_queues
    variable core_reverse_queues
    variable edge_queue
    variable sink_loss_model
    variable wireless_routing
    variable wireless_nodes
    variable wireless_macs
    variable wireless_ifqs
    variable wireless_phys
    variable wireless_losses
    json::write indented 0  ;# compact: pretty-printed, the knobs of a 100-flow run made meta.json most of its run directory
    json::write aligned 0

    set core_ids {}
    foreach node $core {
        lappend core_ids [$node id]
    }
    set sources {}
    set sinks {}
    set flow_list {}
    set flow_knobs {}
    foreach flow $flows {
        set fid [dict get $flow fid]
        set src [[dict get $flow src] id]
        set dst [[dict get $flow dst] id]
        lappend sources $fid $src
        lappend sinks $fid $dst
        lappend flow_list [json::write object fid $fid kind [json::write string [dict get $flow kind]] \
                               group [json::write string [dict get $flow group]] source $src sink $dst]
        set roles [list agent [knobs_json [dict get $flow agent]] sink [knobs_json [dict get $flow sink]]]
        if {[dict get $flow app] ne ""} {
            lappend roles app [knobs_json [dict get $flow app]]
        }
        lappend flow_knobs $fid [json::write object {*}$roles]
    }
    set link_list {}
    foreach link $links {
        set fields [list name [json::write string [dict get $link name]] \
                        from [[dict get $link from] id] to [[dict get $link to] id] \
                        role [json::write string [dict get $link role]]]
        if {[dict get $link fid] ne ""} {
            lappend fields fid [dict get $link fid]
        }
        lappend fields traced true monitored [expr {[dict get $link monitored] ? "true" : "false"}]
        lappend link_list [json::write object {*}$fields]
    }

    set queue_list {}
    foreach q $core_queues {
        lappend queue_list [knobs_json $q]
    }
    set reverse_list {}
    foreach q $core_reverse_queues {
        lappend reverse_list [knobs_json $q]
    }
    set extra {}
    if {$edge_queue ne ""} {
        lappend extra edge_queue [knobs_json $edge_queue]
    }
    if {[info exists sink_loss_model]} {
        lappend extra sink_loss [knobs_json $sink_loss_model]
    }
    set wireless {}
    if {$wireless_routing ne ""} {
        # The nodes are alike: node 0's MAC, IFQ, radio and loss model stand for all.
        set loss {}
        if {[llength $wireless_losses]} {
            set loss [list loss [knobs_json [lindex $wireless_losses 0]]]
        }
        lappend wireless wireless [json::write object \
            nodes [llength $wireless_nodes] routing [json::write string $wireless_routing] \
            mac [knobs_json [lindex $wireless_macs 0]] ifq [knobs_json [lindex $wireless_ifqs 0]] \
            phy [knobs_json [lindex $wireless_phys 0]] {*}$loss]
    }
    set json [json::write object \
        schema [json::write string ns2-repro/run-meta/1] \
        nodes [json::write object \
            core [json::write array {*}$core_ids] \
            sources [json::write object {*}$sources] \
            sinks [json::write object {*}$sinks]] \
        links [json::write array {*}$link_list] \
        {*}$wireless \
        flows [json::write array {*}$flow_list] \
        knobs [json::write object \
            core_queue [knobs_json $core_queue] \
            core_queues [json::write array {*}$queue_list] \
            core_reverse_queues [json::write array {*}$reverse_list] \
            {*}$extra \
            flows [json::write object {*}$flow_knobs]]]
    set fh [open $file w]
    puts $fh $json
    close $fh
}

proc repro::knobs_json {obj} {
    set values {}
    dict for {knob value} [knob_values $obj] {
        lappend values $knob [json::write string $value]
    }
    json::write object class [json::write string [$obj info class]] values [json::write object {*}$values]
}
