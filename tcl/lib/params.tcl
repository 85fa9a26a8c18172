# Reading params.json (DESIGN.md §2) and applying knobs strictly.
#
# Every problem with the parameters goes through repro::fail, which raises an
# error tagged NS2REPRO; the driver turns it into the one-line message of
# DESIGN.md §1 and exit status 3.

package require json

namespace eval repro {
    # A decimal number as JSON writes it (no hex, no Inf/NaN).
    variable NUM {[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?}
    # Unit suffixes ns-2 understands, with their factors: times in seconds,
    # rates in bits per second (a trailing B means bytes).
    variable TIME_UNITS {s 1 ms 1e-3 us 1e-6 ns 1e-9 ps 1e-12}
    variable RATE_UNITS {k 1e3 K 1e3 m 1e6 M 1e6 g 1e9 G 1e9}
}

proc repro::fail {where problem known} {
    return -code error -errorcode NS2REPRO "ns2-repro: $where: $problem; known: $known"
}

# The allowed values for an error line: all of them when there are few,
# otherwise the five closest to what was written.
proc repro::known {word candidates} {
    set candidates [lsort -unique $candidates]
    if {[llength $candidates] <= 10} {
        return [join $candidates ", "]
    }
    set scored {}
    foreach c $candidates {
        lappend scored [list [distance $word $c] $c]
    }
    set best {}
    foreach pair [lrange [lsort -integer -index 0 $scored] 0 4] {
        lappend best [lindex $pair 1]
    }
    return "[join $best {, }] (the 5 closest of [llength $candidates])"
}

# Levenshtein edit distance.
proc repro::distance {a b} {
    set prev {}
    for {set j 0} {$j <= [string length $b]} {incr j} {
        lappend prev $j
    }
    for {set i 1} {$i <= [string length $a]} {incr i} {
        set cur [list $i]
        set ca [string index $a [expr {$i - 1}]]
        for {set j 1} {$j <= [string length $b]} {incr j} {
            set cost [expr {$ca eq [string index $b [expr {$j - 1}]] ? 0 : 1}]
            lappend cur [expr {min([lindex $prev $j] + 1, [lindex $cur end] + 1,
                                   [lindex $prev [expr {$j - 1}]] + $cost)}]
        }
        set prev $cur
    }
    return [lindex $prev end]
}

proc repro::load_params {file} {
    if {[catch {open $file r} fh]} {
        fail params.json "cannot be read ([string trim [lindex [split $fh :] end]])" "a readable file $file"
    }
    set text [read $fh]
    close $fh
    if {[catch {json::json2dict $text} params] || ![is_object $params]} {
        fail params.json "not a JSON object" "a run-params object as in DESIGN.md §2"
    }
    return $params
}

# ---- structural checks; `where` is the JSON path used in error lines ----

# json2dict gives objects as dicts; an object is a list of even length.
proc repro::is_object {value} {
    expr {[string is list $value] && [llength $value] % 2 == 0}
}

# Checks an object's fields: all of `required` present, nothing outside
# `required` and `optional` (a misspelt optional field would otherwise be
# silently ignored).
proc repro::check_fields {obj where required {optional {}}} {
    if {![is_object $obj]} {
        fail $where "not a JSON object" "an object with fields [join [concat $required $optional] {, }]"
    }
    foreach key [dict keys $obj] {
        if {$key ni $required && $key ni $optional} {
            fail [join_path $where $key] "unknown field" [known $key [concat $required $optional]]
        }
    }
    foreach key $required {
        if {![dict exists $obj $key]} {
            set of [expr {$where eq "" ? "params.json" : $where}]
            fail [join_path $where $key] "missing required field" "required fields of $of: [join $required {, }]"
        }
    }
}

# A required object field, with its own fields checked.
proc repro::need_object {obj where key required {optional {}}} {
    set value [dict get $obj $key]
    check_fields $value [join_path $where $key] $required $optional
    return $value
}

proc repro::join_path {where key} {
    expr {$where eq "" ? $key : "$where.$key"}
}

# A number field; `range` is a condition such as "> 0" it must satisfy.
proc repro::need_number {obj where key {range ""} {integer 0}} {
    variable NUM
    set value [dict get $obj $key]
    set ok [regexp [expr {$integer ? {^[-+]?[0-9]+$} : "^$NUM\$"}] $value]
    if {$ok && $range ne ""} {
        set ok [expr "\$value $range"]
    }
    if {!$ok} {
        set kind [expr {$integer ? "an integer" : "a number"}]
        fail [join_path $where $key] "bad value \"$value\"" [string trim "$kind $range"]
    }
    return $value
}

# A link bandwidth ("10Mb") or delay ("10ms") in ns-2's units.
proc repro::need_quantity {obj where key unit_kind} {
    set value [dict get $obj $key]
    if {[llength [quantity $value $unit_kind]] == 0} {
        set eg [expr {$unit_kind eq "rate" ? "10Mb, 1.5Gb, 64Kb" : "10ms, 1us, 0.5"}]
        fail [join_path $where $key] "bad $unit_kind \"$value\"" "a number with an optional unit, e.g. $eg"
    }
    return $value
}

# The number of base units a value means ({} when it is not a number with a
# known unit). unit_kind: time, rate, or any (true/false count as 1/0).
proc repro::quantity {value unit_kind} {
    variable NUM
    variable TIME_UNITS
    variable RATE_UNITS
    if {$unit_kind eq "any" && $value in {true false}} {
        return [expr {$value eq "true"}]
    }
    if {![regexp "^($NUM)(\[a-zA-Z\]*)\$" $value -> number unit]} {
        return {}
    }
    if {$unit eq ""} {
        return $number
    }
    if {$unit_kind in {time any} && [dict exists $TIME_UNITS $unit]} {
        return [expr {$number * [dict get $TIME_UNITS $unit]}]
    }
    if {$unit_kind in {rate any} && [regexp {^([kKmMgG])(b|B|bps)?$} $unit -> scale bits]} {
        return [expr {$number * [dict get $RATE_UNITS $scale] * ($bits eq "B" ? 8 : 1)}]
    }
    return {}
}

# A {"class": ..., "knobs": {...}} object whose class is `base` or derives
# from it; `base` itself is excluded when it is abstract.
proc repro::need_class_spec {obj where key base {abstract 0}} {
    set spec [need_object $obj $where $key class knobs]
    set path [join_path $where $key]
    set cls [dict get $spec class]
    set allowed [descendants $base]
    if {$abstract} {
        set allowed [lsearch -all -inline -exact -not $allowed $base]
    }
    if {$cls ni $allowed} {
        set kind [expr {$abstract ? "a subclass of $base" : "$base or a subclass"}]
        fail $path.class "unknown class \"$cls\" (must be $kind)" [known $cls $allowed]
    }
    if {[dict exists $spec knobs] && ![is_object [dict get $spec knobs]]} {
        fail $path.knobs "not a JSON object" "an object of knob names and values"
    }
    return $spec
}

# The OTcl class `base` and every class that derives from it.
proc repro::descendants {base} {
    variable descendants_of
    if {![info exists descendants_of($base)]} {
        set result {}
        foreach cls [Class info instances] {
            if {$cls eq $base || $base in [$cls info heritage]} {
                lappend result $cls
            }
        }
        set descendants_of($base) [lsort $result]
    }
    return $descendants_of($base)
}

# ---- knobs ----

# The knobs of an object: the class variables of its class and superclasses
# (ns-default.tcl gives every bound variable a class-level default, so this is
# the set of names ns-2 knows for the object), restricted to those the object
# actually holds. A class default with no binding behind it (Queue/RED's
# doubleq_, SplitObject's id counter) would be accepted by `set` and ignored.
proc repro::knob_names {obj} {
    variable bound_knobs
    set cls [$obj info class]
    # ns-2 answers `$obj set` of a C++-bound variable slowly (tclcl's delay_bind), and a run of many flows
    # spent much of its set-up here, asking every object about every class variable, twice (its knobs, then
    # meta.json). Which bound variables answer is fixed by the C++ class behind the Tcl class, so they are
    # asked once per class; OTcl instance variables are the object's own (a method may add one to one object
    # later), so those are asked of the object every time.
    if {![info exists bound_knobs($cls)]} {
        set candidates {}
        foreach c [concat $cls [$cls info heritage]] {
            lappend candidates {*}[$c info vars]
        }
        set candidates [lsort -unique $candidates]
        set own [$obj info vars]
        set bound {}
        foreach var $candidates {
            if {$var ni $own && ![catch {$obj set $var}]} {
                lappend bound $var
            }
        }
        set bound_knobs($cls) [list $candidates $bound]
    }
    lassign $bound_knobs($cls) candidates names
    foreach var [$obj info vars] {
        if {$var in $candidates && ![catch {$obj set $var}]} {
            lappend names $var
        }
    }
    return [lsort -unique $names]
}

# The class-level default of a knob: from the nearest class that sets it.
proc repro::class_default {cls var} {
    foreach c [concat $cls [$cls info heritage]] {
        if {$var in [$c info vars]} {
            return [$c set $var]
        }
    }
    return ""
}

# Set each knob of a spec on obj. ns-2 silently stores 0 for "abc", 1 for
# "1.5" in an int, 5 for "5Mb" in a time, so numeric knobs are read back and
# must hold the value that was written.
# `reserved` maps knobs the driver sets itself to the reason.
proc repro::apply_knobs {obj spec where {reserved {}}} {
    if {![dict exists $spec knobs]} {
        return
    }
    set cls [$obj info class]
    set names [knob_names $obj]
    dict for {knob value} [dict get $spec knobs] {
        set path $where.knobs.$knob
        if {[dict exists $reserved $knob]} {
            fail $path "set by the driver: [dict get $reserved $knob]" "the other knobs of $cls"
        }
        if {$knob ni $names} {
            set unbound ""
            if {[class_default $cls $knob] ne ""} {
                set unbound " (a class default ns-2 never binds, so it has no effect)"
            }
            fail $path "unknown knob of $cls$unbound" [known $knob $names]
        }
        set default [class_default $cls $knob]
        set numeric [expr {[llength [quantity $default any]] > 0}]
        set want [quantity $value any]
        if {$numeric && [llength $want] == 0} {
            fail $path "\"$value\" is not a number" \
                "numbers, true/false, times like 10ms, rates like 5Mb (default: $default)"
        }
        if {[catch {$obj set $knob $value} msg]} {
            fail $path "ns-2 refuses \"$value\": $msg" "values like the default $default"
        }
        if {$numeric} {
            set got [$obj set $knob]
            if {![same_number $got $want]} {
                fail $path "ns-2 stores $got for \"$value\"" \
                    "values this knob holds unchanged, like the default $default"
            }
        }
    }
}

proc repro::same_number {got want} {
    variable NUM
    expr {[regexp "^$NUM\$" $got] && abs($got - $want) <= 1e-9 * abs($want)}
}

# name -> value of every knob of obj, as Tcl prints them.
proc repro::knob_values {obj} {
    set values {}
    foreach knob [knob_names $obj] {
        dict set values $knob [$obj set $knob]
    }
    return $values
}
