# `sample t var...`: one line "sample <t> <var> <value>" per variable of the queue $q,
# numbers with all 17 significant digits (shared by the hand-built queue scripts).
proc sample {t args} {
    global q
    foreach var $args {
        set v [$q set $var]
        if {[string is double -strict $v]} {
            set v [format %.17g $v]
        }
        puts "sample $t $var $v"
    }
}
