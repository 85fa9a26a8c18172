"""Wireless experiment files: tests/configs/wireless.yaml is valid (bad/wireless_*.yaml are it with one defect,
checked by test_config_errors.py), and what the driver would refuse in every run is refused when validating."""

from __future__ import annotations

import pytest
from test_config_errors import CONFIGS, validate

WIRELESS = CONFIGS / "wireless.yaml"


def test_the_wireless_file_is_valid(tmp_path):
    result = validate(WIRELESS, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ok (1 experiments, 2 runs, 1 claims)" in result.stdout


def test_every_wireless_defect_is_in_the_corpus():
    names = {p.stem for p in (CONFIGS / "bad").glob("*.yaml")}
    assert {
        "wireless_with_core_link",
        "wired_with_placement",
        "wired_flow_with_endpoints",
        "wireless_flow_without_endpoints",
        "wireless_endpoints_same_node",
        "wireless_endpoint_beyond_nodes",
        "wireless_line_beyond_area",
        "wireless_packet_trace",
        "wireless_http_flow",
    } <= names
    for name in names:
        if name.startswith("wireless_"):
            body = (CONFIGS / "bad" / f"{name}.yaml").read_text().split("\n", 1)[1]
            assert "kind: wireless" in body, name


@pytest.mark.parametrize(
    "old, new",
    [
        pytest.param("    class: Queue/DropTail/PriQueue\n", "    class: Queue/DropTail\n", id="named-queue"),
        pytest.param("      core_queue: IFQ\n", "      core_queue: {class: Queue/RED}\n", id="inline-queue"),
    ],
)
def test_an_interface_queue_that_is_no_priqueue_is_refused(old, new, tmp_path):
    """The driver refuses every run whose core_queue is no Queue/DropTail/PriQueue on a wireless topology (the
    routing agents call its filter()): validation must say so once, before any run is simulated."""
    text = WIRELESS.read_text()
    assert text.count(old) == 1
    path = tmp_path / "ifq.yaml"
    path.write_text(text.replace(old, new))
    work = tmp_path / "cwd"
    work.mkdir()
    result = validate(path, work)
    assert result.returncode == 2, f"validated: {result.stdout}"
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ")
    assert "core_queue" in lines[0] or "queues.IFQ" in lines[0]
    assert "Queue/DropTail/PriQueue" in lines[0], "names the class an interface queue must be or derive from"
