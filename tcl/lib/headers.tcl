# Packet headers a run registers (DESIGN.md §2, monitors.packet_headers).
#
# ns-2 gives every packet room for every header class it knows (62 in our build, 4,672
# bytes, most of it the routing protocols' headers; the list below takes 480) and zeroes
# that room on every packet allocation: on a wired run a large share of the
# simulator's own work. A
# wired run registers only the headers its agents, queues and monitors touch, before
# `new Simulator` lays the headers out. Every other header class gets the offset -1,
# so that code touching one aborts the run in Packet::access (stock ns-2's check of a
# negative offset) instead of reading or writing another header's bytes: a missing
# header is a crash, never a changed result.
#
# Which headers: Common (always), IP and Flags (Agent::initpkt; ECN, RED's marks),
# TCP (the TCP agents and sinks), RTP (UDP agents and LossMonitor sinks), QS (TCP's
# Quick-Start fields, read on every segment), NV (Agent::initpkt when ns-2 is built
# with the STL, as ours is), BQM (ns2-patches/0009: BQM's senders, sinks and queue),
# RAP, TFRC and TFRC_ACK (Trace::get_seqno, which the packet log calls, takes their
# addresses on every packet; stock ns-2's Packet::access aborts even on that). The
# outputs of a run are the same bytes either way (bench/packet_headers.py on every
# cell, tests/tcl/test_packet_headers.py).
# A wireless run keeps them all (802.11, LL, ARP and its routing protocol's headers: not
# pruned, as not verified), and so does the text trace: ns-2's Trace::format reaches
# the headers of every protocol it can print.

namespace eval repro {
    variable WIRED_HEADERS {Common IP Flags TCP RTP QS NV BQM RAP TFRC TFRC_ACK}
}

# Registers the run's packet headers; called before `new Simulator`. `which` is
# monitors.packet_headers: "used" (the default) or "all" (stock ns-2's layout).
proc repro::register_packet_headers {which wireless packet_trace} {
    variable WIRED_HEADERS
    if {$which eq "all" || $wireless || $packet_trace eq "text"} {
        return
    }
    remove-all-packet-headers
    add-packet-header {*}$WIRED_HEADERS
    PacketHeaderManager instvar tab_
    foreach cl [PacketHeader info subclass] {
        if {![info exists tab_($cl)]} {
            $cl offset -1
        }
    }
}

# ns-2's abort() (tclAppInit.cc) calls the simulator's flush-trace, then exits 1
# without a word; this run's simulator names the likely cause first. The driver
# never calls flush-trace itself.
proc repro::explain_abort {ns} {
    $ns proc flush-trace {} {
        puts stderr "ns2-repro: ns-2 called abort(); on a wired run the likely cause is a packet header\
            the run does not register: add it to WIRED_HEADERS in tcl/lib/headers.tcl, or set monitors.packet_headers: all"
    }
}
