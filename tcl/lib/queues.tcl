# Queues: every link carries a queue of a params.json class with its knobs.

# A duplex link a<->b whose two queues are of class spec.class (a Queue/...
# class, checked by need_class_spec) with spec.knobs applied. Returns the
# queue of the a->b direction.
proc repro::queue_link {ns a b bandwidth delay spec where} {
    set cls [dict get $spec class]
    # duplex-link takes the queue type without the Queue/ prefix.
    if {[catch {$ns duplex-link $a $b $bandwidth $delay [string range $cls 6 end]} msg]} {
        fail $where.class "ns-2 cannot build a link with $cls ($msg)" [known $cls [descendants Queue]]
    }
    foreach {from to} [list $a $b $b $a] {
        apply_knobs [[$ns link $from $to] queue] $spec $where
    }
    return [[$ns link $a $b] queue]
}
