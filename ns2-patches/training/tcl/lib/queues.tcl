# Queues: every link carries a queue of a params.json class with its knobs.

# A duplex link a<->b whose two queues are of class spec.class (a Queue/...
# class, checked by need_class_spec) with spec.knobs applied; with a reverse
# spec (and its params path), the b->a queue is of that one instead.
# Returns the queue of the a->b direction.
proc repro::queue_link {ns a b bandwidth delay spec where {reverse ""} {reverse_where ""}} {
    if {$reverse eq ""} {
        set reverse $spec
        set reverse_where $where
    }
    foreach {from to s w} [list $a $b $spec $where $b $a $reverse $reverse_where] {
        set cls [dict get $s class]
        # simplex-link takes the queue type without the Queue/ prefix.
        if {[catch {$ns simplex-link $from $to $bandwidth $delay [string range $cls 6 end]} msg]} {
            fail $w.class "ns-2 cannot build a link with $cls ($msg)" [known $cls [descendants Queue]]
        }
        apply_knobs [[$ns link $from $to] queue] $s $w
    }
    return [[$ns link $a $b] queue]
}
