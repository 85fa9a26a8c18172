"""The build script: pinned tarball, series order, cache key, manifest, optimisation."""

from __future__ import annotations

import json
import subprocess

import ns2_build
import pytest


def test_series_lists_existing_patches_in_order():
    patches = ns2_build.read_series()
    assert [p.name for p in patches][:2] == ["0001-gcc12-source-fixes.patch", "0002-tclcl-int64-bind.patch"]


def test_every_patch_has_a_header_naming_its_section(tmp_path):
    for patch in ns2_build.read_series():
        head = patch.read_text().split("\n--- ", 1)[0]
        assert head.startswith("Subject: "), patch.name
        assert "Paper section:" in head, f"{patch.name}: header must name the paper section (or 'none')"


def test_series_rejects_a_missing_patch(tmp_path):
    (tmp_path / "series").write_text("# comment\n\n0001-real.patch\n0002-missing.patch  # trailing comment\n")
    (tmp_path / "0001-real.patch").write_text("Subject: x\n")
    with pytest.raises(ns2_build.BuildError, match=r"series:4: patch '0002-missing.patch' does not exist"):
        ns2_build.read_series(tmp_path)


def test_key_is_stable_and_moves_with_any_patch_byte(tmp_path):
    for name in ("series", "0001-a.patch"):
        (tmp_path / name).write_text({"series": "0001-a.patch\n", "0001-a.patch": "Subject: a\n"}[name])
    before = ns2_build.cache_key(ns2_build.key_inputs(tmp_path))
    assert before == ns2_build.cache_key(ns2_build.key_inputs(tmp_path))
    (tmp_path / "0001-a.patch").write_text("Subject: a\n ")
    assert ns2_build.cache_key(ns2_build.key_inputs(tmp_path)) != before


def test_key_moves_with_flags(monkeypatch):
    before = ns2_build.cache_key(ns2_build.key_inputs())
    monkeypatch.setattr(ns2_build, "CCOPT", ns2_build.CCOPT.replace("-O2", "-O3"))
    assert ns2_build.cache_key(ns2_build.key_inputs()) != before


def test_tarball_with_wrong_hash_is_refused(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "fake.tar.xz"
    fake.write_bytes(b"not the ns-2 tarball")
    monkeypatch.setenv("NS2REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NS2_TARBALL", str(fake))
    assert ns2_build.main(["tarball"]) == 1
    err = capsys.readouterr().err
    assert "has sha256 " in err and f"expected the pinned {ns2_build.TARBALL_SHA256}" in err
    assert not list((tmp_path / "cache" / "src").iterdir()), "a rejected tarball must not stay in the cache"


def test_cached_build_is_reused_without_rebuilding(tmp_path, capsys):
    out = tmp_path / "out"
    assert ns2_build.main(["--out", str(out)]) == 0  # `make test` built it: this must hit the cache
    assert "cached build" in capsys.readouterr().out
    assert (out / "ns").read_bytes() == (
        ns2_build.cache_root() / "ns2" / ns2_build.cache_key(ns2_build.key_inputs()) / "ns"
    ).read_bytes()


def test_manifest_describes_the_installed_binary(ns_binary):
    manifest = json.loads((ns_binary.parent / "manifest.json").read_text())
    inputs = ns2_build.key_inputs()
    assert manifest["schema"] == ns2_build.MANIFEST_SCHEMA
    assert manifest["key"] == ns2_build.cache_key(inputs)
    assert manifest["tarball"]["sha256"] == ns2_build.TARBALL_SHA256
    assert manifest["binary"]["sha256"] == ns2_build.sha256_file(ns_binary)
    assert manifest["series"]["sha256"] == ns2_build.series_sha256(inputs["patches"])
    assert manifest["flags"]["CCOPT"] == ns2_build.CCOPT
    assert manifest["compiler"].startswith("g++")


def test_binary_was_optimised(ns_binary):
    recorded = subprocess.run(
        ["readelf", "-p", ".GCC.command.line", str(ns_binary)], capture_output=True, text=True, check=True
    ).stdout
    assert f" {ns2_build.OPT_FLAGS.split()[0]} " in recorded and " -O0" not in recorded


def test_binary_runs_a_simulation(ns_binary, tmp_path):
    script = tmp_path / "hello.tcl"
    script.write_text('set ns [new Simulator]\n$ns at 1.5 {puts "t=[$ns now]"; exit 0}\n$ns run\n')
    out = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, check=True)
    assert out.stdout == "t=1.5\n"


def test_key_moves_with_link_flags_and_pgo(monkeypatch):
    before = ns2_build.cache_key(ns2_build.key_inputs())
    monkeypatch.setattr(ns2_build, "LDFLAGS", ns2_build.LDFLAGS + " -flto")
    assert ns2_build.cache_key(ns2_build.key_inputs()) != before
    monkeypatch.undo()
    monkeypatch.setattr(ns2_build, "PGO", not ns2_build.PGO)
    assert ns2_build.cache_key(ns2_build.key_inputs()) != before


def test_key_moves_with_any_training_byte(tmp_path, monkeypatch):
    """The profile, hence the binary, depends on the training scenarios and the project's Tcl driver."""
    monkeypatch.setattr(ns2_build, "PGO", True)
    (tmp_path / "tcl").mkdir()
    (tmp_path / "tcl" / "driver.tcl").write_text("# driver\n")
    (tmp_path / "scenarios" / "a").mkdir(parents=True)
    (tmp_path / "scenarios" / "a" / "params.json").write_text("{}\n")
    monkeypatch.setattr(ns2_build, "TRAINING_DIR", tmp_path)
    monkeypatch.setattr(ns2_build, "TCL_DIR", tmp_path / "tcl")
    before = ns2_build.cache_key(ns2_build.key_inputs())
    (tmp_path / "scenarios" / "a" / "params.json").write_text("{} \n")
    assert ns2_build.cache_key(ns2_build.key_inputs()) != before
    after_params = ns2_build.cache_key(ns2_build.key_inputs())
    (tmp_path / "tcl" / "driver.tcl").write_text("# driver 2\n")
    assert ns2_build.cache_key(ns2_build.key_inputs()) != after_params


def test_training_scenarios_are_checked_in():
    scenarios = ns2_build.training_scenarios()
    assert scenarios, "PGO needs training scenarios under ns2-patches/training/scenarios"
    assert (ns2_build.TCL_DIR / "driver.tcl").is_file()
    for params in scenarios:  # the schema the project's driver reads
        assert json.loads(params.read_text())["schema"] == "ns2-repro/run-params/2", params


def test_flags_keep_floating_point_as_written():
    """No FMA contraction, no fast-math, no -march=native: output bytes must not depend on the CPU."""
    flags = f"{ns2_build.CCOPT} {ns2_build.LDFLAGS}"
    if "-march" in flags:  # x86-64-v3 and up have FMA, which gcc contracts a*b+c into by default
        assert "-ffp-contract=off" in flags
    for bad in ("-ffast-math", "-Ofast", "-march=native", "-mtune=native", "-funsafe-math"):
        assert bad not in flags


def test_manifest_records_link_flags_and_pgo(ns_binary):
    flags = json.loads((ns_binary.parent / "manifest.json").read_text())["flags"]
    assert flags["LDFLAGS"] == ns2_build.LDFLAGS
    assert flags["pgo"] == ns2_build.pgo_inputs()
    recorded = subprocess.run(
        ["readelf", "-p", ".GCC.command.line", str(ns_binary)], capture_output=True, text=True, check=True
    ).stdout
    assert ("-fprofile-use" in recorded) == ns2_build.PGO
    assert "-fprofile-generate" not in recorded, "an instrumented object was linked into the final binary"
