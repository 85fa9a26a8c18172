"""The container's entry point: a target swallowed by --config or --configfile is one clear line, exit 2."""

import subprocess
import sys

import pytest

from experiments.entrypoint import argument_error

REPO_FILE = "profiles/smoke/settings.yaml"


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce-all"],
        ["reproduce-all", "--config", "experiment_files=configs/koo_aqm.yaml"],
        ["--config", "experiment_files=configs/koo_aqm.yaml", "--", "reproduce-all"],
        ["--config=experiment_files=configs/koo_aqm.yaml", "reproduce-all"],
        ["--configfile", REPO_FILE, "--dry-run", "reproduce-all"],
        ["--cores", "2", "reproduce-all"],
    ],
)
def test_arguments_snakemake_reads_as_meant_pass(argv):
    assert argument_error(argv) is None


def test_a_target_after_config_is_named_with_the_fix():
    message = argument_error(["--config", "experiment_files=configs/koo_aqm.yaml", "reproduce-all"])
    assert message.startswith("'reproduce-all' after --config is not a name=value pair")
    assert "`reproduce-all --config experiment_files=...`" in message


def test_a_target_after_configfile_is_named_with_the_fix():
    message = argument_error(["--configfile", REPO_FILE, "reproduce-all"])
    assert message.startswith("'reproduce-all' after --configfile is not a YAML or JSON file")


def test_the_entry_point_prints_one_line_and_exits_2_without_starting_snakemake():
    argv = ["--config", "experiment_files=configs/koo_aqm.yaml", "reproduce-all"]
    proc = subprocess.run([sys.executable, "-m", "experiments.entrypoint", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("ns2-repro: 'reproduce-all' after --config")
    assert "Traceback" not in proc.stderr and proc.stdout == ""
