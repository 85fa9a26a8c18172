"""Queue-monitor arrival/departure counters are 64-bit in our ns (patch 0002), 32-bit in Debian's.

Upstream ns-2.35 declares exactly these four as int64_t (tools/queue-monitor.h);
pdrops_, bdrops_ and pmarks_ are plain int upstream and stay so (ns2-patches/README.md).
"""

import subprocess

SCRIPT = """
set ns [new Simulator]
set qm [new QueueMonitor]
foreach v {parrivals_ barrivals_ pdepartures_ bdepartures_} {
    $qm set $v 3000000000
    puts "$v [$qm set $v]"
}
$qm set barrivals_ 9000000000000
puts "large [$qm set barrivals_]"
"""


def run_script(binary, tmp_path):
    script = tmp_path / "qm.tcl"
    script.write_text(SCRIPT)
    out = subprocess.run([str(binary), str(script)], capture_output=True, text=True, check=True)
    return dict(line.split() for line in out.stdout.splitlines())


def test_byte_counters_hold_values_past_2_gib(ns_binary, tmp_path):
    values = run_script(ns_binary, tmp_path)
    assert values == {
        "parrivals_": "3000000000",
        "barrivals_": "3000000000",
        "pdepartures_": "3000000000",
        "bdepartures_": "3000000000",
        "large": "9000000000000",
    }


def test_debian_ns_wraps_them(debian_ns, tmp_path):
    """The flaw we fix: if Debian's ns stops wrapping, this test tells us the patch may be moot."""
    assert run_script(debian_ns, tmp_path)["barrivals_"] == str(3000000000 - 2**32)


def test_counters_count_real_traffic_past_2_gib(ns_binary, tmp_path):
    """Not just the Tcl binding: the C++ counter itself accumulates past 2^31 bytes.

    A 10 Gb/s link carries 2.5 GB in 2 s; barrivals_ must equal the packet count times
    the packet size, which wraps in a 32-bit counter.
    """
    script = tmp_path / "fast.tcl"
    script.write_text(
        """
set ns [new Simulator]
set a [$ns node]
set b [$ns node]
$ns duplex-link $a $b 10Gb 1ms DropTail
$ns queue-limit $a $b 100000
set qm [$ns monitor-queue $a $b ""]
set udp [new Agent/UDP]
$ns attach-agent $a $udp
set sink [new Agent/Null]
$ns attach-agent $b $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 1000
$cbr set rate_ 10Gb
$ns at 0.0 "$cbr start"
$ns at 2.0 {puts "[$qm set parrivals_] [$qm set barrivals_]"; exit 0}
$ns run
"""
    )
    out = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, check=True, timeout=600)
    packets, bytes_ = map(int, out.stdout.split())
    assert bytes_ > 2**31
    assert bytes_ == packets * 1000  # a UDP agent's packetSize_ is the whole packet
