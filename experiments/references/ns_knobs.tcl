# The knob names of ns-2 classes, asked of an ns binary (experiments/ns_knobs.py):
#
#     ns experiments/ns_knobs.tcl <class> ...
#
# prints one JSON object on stdout:
#   {"heritage": {"<class>": ["<superclass>", ...], ...},   every class under
#                                      Queue, Agent, Application, ErrorModel, Mac and Phy
#    "knobs": {"<class>": {"knobs": [...], "unbound": [...]}
#              or {"error": "<why ns-2 cannot create one>"}, ...}}
# for each class named on the command line that ns-2 knows.
#
# Knobs are found as tcl/lib/params.tcl's repro::knob_names finds them: the class
# variables of the class and its heritage (ns-default.tcl gives every bound
# variable a class-level default) that an instance actually holds; "unbound" are
# class defaults an instance does not hold (setting them would have no effect).
# This file is not under tcl/, so editing it changes no run key.

set BASES {Queue Agent Application ErrorModel Mac Phy}

proc json_string {text} {
    return "\"[string map {\\ \\\\ \" \\\" \n \\n \t \\t} $text]\""
}

proc json_list {items} {
    set out {}
    foreach item $items {
        lappend out [json_string $item]
    }
    return "\[[join $out ,]\]"
}

proc under_bases {cls} {
    global BASES
    foreach base $BASES {
        if {$cls eq $base || $base in [$cls info heritage]} {
            return 1
        }
    }
    return 0
}

proc class_knobs {cls} {
    if {[catch {new $cls} obj]} {
        return "{\"error\": [json_string [lindex [split $obj \n] 0]]}"
    }
    set bound {}
    set unbound {}
    foreach c [concat $cls [$cls info heritage]] {
        foreach var [$c info vars] {
            if {[catch {$obj set $var}]} {
                lappend unbound $var
            } else {
                lappend bound $var
            }
        }
    }
    set bound [lsort -unique $bound]
    set unbound [lsort -unique [lmap var $unbound {expr {$var in $bound ? [continue] : $var}}]]
    return "{\"knobs\": [json_list $bound], \"unbound\": [json_list $unbound]}"
}

# A Simulator first: some constructors look up the scheduler or the default RNG.
set ns [new Simulator]
set heritage {}
foreach cls [lsort [Class info instances]] {
    if {[under_bases $cls]} {
        lappend heritage "[json_string $cls]: [json_list [$cls info heritage]]"
    }
}
set knobs {}
foreach cls [lsort -unique $argv] {
    if {$cls in [Class info instances]} {
        lappend knobs "[json_string $cls]: [class_knobs $cls]"
    }
}
puts "{\"heritage\": {[join $heritage {, }]}, \"knobs\": {[join $knobs {, }]}}"
exit 0
