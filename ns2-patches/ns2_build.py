#!/usr/bin/env python3
"""Build our patched ns-2.35: Debian's pinned original tarball + ns2-patches/series.

Standard library only, because it runs before the project's virtualenv exists.

    python3 ns2-patches/ns2_build.py --out build/ns2     # build (or reuse) and install
    python3 ns2-patches/ns2_build.py --log FILE ...      # also copy progress lines to FILE
    python3 ns2-patches/ns2_build.py key                 # print the cache key only
    python3 ns2-patches/ns2_build.py tarball             # fetch + verify the tarball, print its path

The binary is cached under $NS2REPRO_CACHE (default ~/.cache/ns2-repro)/ns2/<key>/,
where <key> hashes everything that decides the binary's bytes: the tarball's sha256,
each patch in series order, the configure arguments, the compiler and link flags,
with PGO on its flags and every training file (ns2-patches/training/), this
script, the compiler version and the Debian versions of the Tcl/OTcl/TclCL
packages linked against. An unchanged key reuses the cached binary in seconds.
See ns2-patches/README.md for why each step is the way it is.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

TARBALL_NAME = "ns2_2.35+dfsg.orig.tar.xz"
TARBALL_SHA256 = "a3a097194c87fedbf2a7d3c8520790dc8688874cad0373af2db0ed33e463d52e"
TREE_NAME = "ns-2.35"  # top-level directory inside the tarball

# The stock configure's -O2 probe misreads gcc 12's version and leaves CCOPT at
# -O0, so the optimisation flags are given here. USE_INTERP_RESULT re-enables
# Tcl 8.6's deprecated interp->result that ns-2 still uses. -frecord-gcc-switches
# stores these flags in the binary (.GCC.command.line), so a test can check them.
# Faster flag sets were measured (docs/PERFORMANCE.md, section ns2-speed: -O3, LTO, PGO)
# and none earned its place: the ns binary's own code is about a tenth of the
# instructions a papers' run executes (the rest is libtcl, libc, libm), so the
# plain -O2 binary stays, byte for byte the one every run key names. Should a
# -march with FMA (x86-64-v3 and up) ever be added, add -ffp-contract=off with it:
# gcc contracts a*b+c into fused multiply-adds by default, which changes output bytes.
OPT_FLAGS = "-O2"
CCOPT = f"{OPT_FLAGS} -Wall -Wno-write-strings -DUSE_INTERP_RESULT -frecord-gcc-switches"
# The link flags: configure's own (-Wl,-export-dynamic) plus any the optimisation needs
# (e.g. -flto, which must be given to the link too).
LDFLAGS = "-Wl,-export-dynamic"
# Profile-guided optimisation (off: it measured within noise, see above). When on:
# build instrumented (-fprofile-generate), run the training scenarios of
# ns2-patches/training/ one after another (fixed inputs, ASLR off), then rebuild every
# object with -fprofile-use; the key then includes the flags and every training file.
PGO = False
PGO_GENERATE = "-fprofile-generate -fprofile-update=single"
PGO_USE = "-fprofile-use -Wno-missing-profile"
TRAINING_DIR = HERE / "training"
# The training runs go through the project's own driver: with PGO on, an edit of tcl/ changes the key.
TCL_DIR = HERE.parent / "tcl"
# --with-* point at a directory of symlinks into Debian's multiarch layout
# (see make_prefix); Tk is not needed for simulation.
CONFIGURE_ARGS = ["--with-tcl-ver=8.6", "--with-tk=no"]
MAKE_TARGET = "ns"  # only the simulator: nse, nstk and the utilities are not used

# Debian packages whose files the build compiles or links against; their
# versions are part of the key and the manifest.
SYSTEM_PACKAGES = ["tcl-dev", "libotcl1-dev", "libtclcl1-dev", "tclcl", "g++"]

MANIFEST_SCHEMA = "ns2-repro/ns2-build-manifest/1"


class BuildError(Exception):
    """A failure with a one-line explanation for the user."""


_progress_log = None  # file that say() copies to, set by main(--log)


def say(message: str) -> None:
    """One progress line, to stdout and to the --log file."""
    line = f"[ns2] {message}"
    print(line, flush=True)
    if _progress_log is not None:
        _progress_log.write(line + "\n")
        _progress_log.flush()


def cache_root() -> Path:
    return Path(os.environ.get("NS2REPRO_CACHE", Path.home() / ".cache" / "ns2-repro"))


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_series(patch_dir: Path = HERE) -> list[Path]:
    """The patches named in `series`, in order; comments and blank lines skipped."""
    series = patch_dir / "series"
    patches = []
    for lineno, line in enumerate(series.read_text().splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        path = patch_dir / name
        if not path.is_file():
            raise BuildError(f"{series}:{lineno}: patch '{name}' does not exist in {patch_dir}")
        patches.append(path)
    return patches


def run_text(cmd: list[str]) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def compiler_version() -> str:
    return run_text(["g++", "--version"]).splitlines()[0]


def package_versions() -> dict[str, str]:
    versions = {}
    for pkg in SYSTEM_PACKAGES:
        try:
            versions[pkg] = run_text(["dpkg-query", "-W", "-f=${Version}", pkg])
        except (subprocess.CalledProcessError, FileNotFoundError):
            raise BuildError(
                f"Debian package '{pkg}' is not installed; the set-up step (make setup) installs it with apt-get"
            ) from None
    return versions


def key_inputs(patch_dir: Path = HERE) -> dict:
    """Everything that decides the binary's bytes, as a JSON-able dict."""
    return {
        "tarball_sha256": TARBALL_SHA256,
        "patches": [[p.name, sha256_file(p)] for p in read_series(patch_dir)],
        "configure_args": CONFIGURE_ARGS,
        "ccopt": CCOPT,
        "ldflags": LDFLAGS,
        "pgo": pgo_inputs(),
        "make_target": MAKE_TARGET,
        "build_script_sha256": sha256_file(Path(__file__).resolve()),
        "compiler": compiler_version(),
        "packages": package_versions(),
    }


def training_files() -> dict[str, Path]:
    """Every file the PGO training reads, by a name for the key: the scenarios (training/...) and the project's
    Tcl driver and library (tcl/...)."""
    files = {f"training/{p.relative_to(TRAINING_DIR)}": p for p in TRAINING_DIR.rglob("*.json")}
    files |= {f"tcl/{p.relative_to(TCL_DIR)}": p for p in TCL_DIR.rglob("*.tcl")}
    return dict(sorted(files.items()))


def training_scenarios(training_dir: Path | None = None) -> list[Path]:
    """The training runs: scenarios/<name>/params.json, in name order."""
    root = training_dir or TRAINING_DIR
    return sorted((root / "scenarios").glob("*/params.json"))


def pgo_inputs() -> dict | None:
    """What the profile (hence the binary) depends on: the flags and every training file."""
    if not PGO:
        return None
    return {
        "generate": PGO_GENERATE,
        "use": PGO_USE,
        "training": [[name, sha256_file(path)] for name, path in training_files().items()],
    }


def cache_key(inputs: dict) -> str:
    canonical = json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode()
    return sha256_bytes(canonical)[:20]


def series_sha256(patches: list[list[str]]) -> str:
    """One hash for the ordered series: names and contents."""
    return sha256_bytes(json.dumps(patches, separators=(",", ":")).encode())


# --- the tarball -----------------------------------------------------------


def fetch_tarball_with_apt(dest_dir: Path) -> Path:
    """Download the orig tarball with `apt-get source --download-only ns2`.

    Uses a private copy of apt's state (a deb-src twin of the system's
    debian.sources), so the system's apt configuration is left untouched.
    apt exits non-zero because Debian's packaging tarball for ns2 is not
    served; only the orig tarball matters, so the exit status is judged by
    whether that file arrived.
    """
    system_sources = Path("/etc/apt/sources.list.d/debian.sources")
    if not system_sources.is_file():
        raise BuildError(f"{system_sources} not found: cannot locate a Debian mirror for deb-src")
    with tempfile.TemporaryDirectory(prefix="ns2-apt-") as tmp:
        state = Path(tmp)
        (state / "sources.d").mkdir()
        for sub in ("lists/partial", "cache/archives/partial", "download"):
            (state / sub).mkdir(parents=True)
        deb_src = system_sources.read_text().replace("Types: deb\n", "Types: deb-src\n")
        (state / "sources.d" / "debian-src.sources").write_text(deb_src)
        opts = [
            "-o", "Dir::Etc::SourceList=/dev/null",
            "-o", f"Dir::Etc::SourceParts={state / 'sources.d'}",
            "-o", f"Dir::State::Lists={state / 'lists'}",
            "-o", f"Dir::Cache={state / 'cache'}",
            "-o", "Debug::NoLocking=1",
            "-o", "APT::Sandbox::User=root",
        ]  # fmt: skip
        log = state / "apt.log"
        with open(log, "w") as out:
            subprocess.run(["apt-get", *opts, "-q", "update"], stdout=out, stderr=out, check=False)
            subprocess.run(
                ["apt-get", *opts, "source", "--download-only", "ns2"],
                cwd=state / "download", stdout=out, stderr=out, check=False,
            )  # fmt: skip
        got = state / "download" / TARBALL_NAME
        if not got.is_file():
            tail = "\n".join(log.read_text().splitlines()[-8:])
            raise BuildError(f"apt-get source --download-only ns2 did not deliver {TARBALL_NAME}:\n{tail}")
        dest_dir.mkdir(parents=True, exist_ok=True)
        partial = dest_dir / (TARBALL_NAME + ".partial")
        shutil.copyfile(got, partial)
        return partial


def ensure_tarball() -> Path:
    """Path of the verified tarball in the cache, downloading it if needed.

    $NS2_TARBALL may name a local copy (e.g. on a machine without deb-src access).
    """
    src_dir = cache_root() / "src"
    cached = src_dir / TARBALL_NAME
    if cached.is_file() and sha256_file(cached) == TARBALL_SHA256:
        return cached
    local = os.environ.get("NS2_TARBALL")
    if local:
        src_dir.mkdir(parents=True, exist_ok=True)
        candidate = src_dir / (TARBALL_NAME + ".partial")
        shutil.copyfile(local, candidate)
        origin = local
    else:
        say(f"fetching {TARBALL_NAME} with apt-get source")
        candidate = fetch_tarball_with_apt(src_dir)
        origin = "apt-get source ns2"
    actual = sha256_file(candidate)
    if actual != TARBALL_SHA256:
        candidate.unlink()
        raise BuildError(
            f"{TARBALL_NAME} from {origin} has sha256 {actual}, expected the pinned "
            f"{TARBALL_SHA256} (TARBALL_SHA256 in ns2-patches/ns2_build.py); refusing to build"
        )
    candidate.replace(cached)
    return cached


# --- the build -------------------------------------------------------------


def multiarch() -> str:
    return run_text(["gcc", "-print-multiarch"])


def make_prefix(prefix: Path) -> None:
    """A directory that looks like an installed Tcl/OTcl/TclCL to ns-2's configure.

    The stock configure searches for tcl.h *and* tclInt.h, libtcl8.6, init.tcl and
    http.tcl, otcl.h/libotcl, tclcl.h/libtclcl and tcl2c++ under the --with-*
    directory given, in the layout of a source or /usr/local install. Debian
    spreads these over /usr/include/tcl8.6/tcl-private, /usr/lib/<multiarch> and
    /usr/share/tcltk; symlinks gather them under one prefix passed to all three
    --with-* options, and configure itself stays unpatched.
    """
    include, lib, bin_ = prefix / "include", prefix / "lib", prefix / "bin"
    for d in (include, lib, bin_):
        d.mkdir(parents=True)
    header_dirs = [
        Path("/usr/include/tcl8.6/tcl-private/generic"),  # tcl.h, tclInt.h
        Path("/usr/include/tcl8.6/tcl-private/unix"),
        Path("/usr/include/tclcl"),
    ]
    headers = [h for d in header_dirs for h in sorted(d.glob("*.h"))]
    headers.append(Path("/usr/include/otcl.h"))
    libdir = Path("/usr/lib") / multiarch()
    libs = [libdir / name for name in ("libtcl8.6.so", "libotcl.so", "libtclcl.so")]
    links = [(h, include / h.name) for h in headers]
    links += [(lib_, lib / lib_.name) for lib_ in libs]
    links += [
        (Path("/usr/share/tcltk/tcl8.6"), lib / "tcl8.6"),  # init.tcl, http1.0/http.tcl
        (Path("/usr/bin/tcl2c++"), bin_ / "tcl2c++"),
    ]
    for target, link in links:
        if not target.exists():
            raise BuildError(f"{target} is missing: install the Debian packages {', '.join(SYSTEM_PACKAGES)}")
        link.symlink_to(target)


def run_logged(cmd: list[str], cwd: Path, log, what: str) -> None:
    log.write(f"\n$ {' '.join(cmd)}\n")
    log.flush()
    result = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise BuildError(f"{what} failed (exit {result.returncode}): {' '.join(cmd)}")


def run_make(tree: Path, jobs: int, log, ccopt: str | None = None, ldflags: str | None = None) -> None:
    """make ns with CCOPT and LDFLAGS (the module's unless given), printing progress as objects compile."""
    ccopt = CCOPT if ccopt is None else ccopt
    ldflags = LDFLAGS if ldflags is None else ldflags
    cmd = ["make", f"-j{jobs}", MAKE_TARGET, f"CCOPT={ccopt}", f"LDFLAGS={ldflags}"]
    dry = subprocess.run(["make", "-n", *cmd[2:]], cwd=tree, capture_output=True, text=True)
    total = sum(1 for line in dry.stdout.splitlines() if " -c " in line) or 1
    log.write(f"\n$ {' '.join(cmd)}\n")
    log.flush()
    done = 0
    proc = subprocess.Popen(cmd, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        log.write(line)
        if " -c " in line:
            done += 1
            if done % 100 == 0:
                say(f"compiled {done}/{total} sources")
    if proc.wait() != 0:
        raise BuildError(f"make failed (exit {proc.returncode}): {' '.join(cmd)}")


def check_optimised(binary: Path) -> None:
    """The flags recorded by -frecord-gcc-switches must include CCOPT's optimisation level."""
    recorded = run_text(["readelf", "-p", ".GCC.command.line", str(binary)])
    if "-flto" in LDFLAGS:  # link-time code: the section holds the LTO link's options only
        recorded = recorded if "-fltrans" in recorded else ""
    if OPT_FLAGS.split()[0] not in recorded:
        raise BuildError(f"{binary} was not compiled with {OPT_FLAGS} (readelf -p .GCC.command.line)")
    if PGO and "-fprofile-use" not in recorded:
        raise BuildError(f"{binary} was not compiled with -fprofile-use (readelf -p .GCC.command.line)")


def train(tree: Path, work: Path, log) -> None:
    """Run the instrumented ns on every training scenario, one at a time, ASLR off.

    Each run writes its branch counts into the .gcda files beside the objects;
    runs in sequence merge deterministically. The driver is the project's own
    tcl/driver.tcl (with PGO on, the image's ns-2 layer must then see tcl/ too).
    """
    scenarios = training_scenarios()
    if not scenarios:
        raise BuildError(f"no training scenarios in {TRAINING_DIR / 'scenarios'}")
    driver = TCL_DIR / "driver.tcl"
    env = {**os.environ, "LC_ALL": "C", "TZ": "UTC"}
    for params in scenarios:
        name = params.parent.name
        run_dir = work / "training-runs" / name
        run_dir.mkdir(parents=True)
        shutil.copyfile(params, run_dir / "params.json")
        say(f"training run {name}")
        cmd = ["setarch", os.uname().machine, "-R", str(tree / MAKE_TARGET), str(driver), str(run_dir)]
        log.write(f"\n$ {' '.join(cmd)}\n")
        log.flush()
        result = subprocess.run(cmd, cwd=run_dir, stdout=log, stderr=subprocess.STDOUT, env=env)
        if result.returncode != 0:
            raise BuildError(f"training run {name} failed (exit {result.returncode}): {' '.join(cmd)}")
        shutil.rmtree(run_dir)
    if not any(tree.rglob("*.gcda")):
        raise BuildError("the training runs wrote no profile (.gcda) files")


def build_objects(tree: Path, work: Path, jobs: int, log) -> None:
    """make ns with the final flags: directly, or instrumented + training + -fprofile-use."""
    if not PGO:
        say(f"make -j{jobs} {MAKE_TARGET} (a cold build takes a few minutes)")
        run_make(tree, jobs, log)
        return
    say(f"make -j{jobs} {MAKE_TARGET}, instrumented for profiling (PGO step 1 of 3)")
    run_make(tree, jobs, log, f"{CCOPT} {PGO_GENERATE}", f"{LDFLAGS} {PGO_GENERATE}")
    say("training runs (PGO step 2 of 3)")
    train(tree, work, log)
    for obj in tree.rglob("*.o"):
        obj.unlink()
    (tree / MAKE_TARGET).unlink()
    say(f"make -j{jobs} {MAKE_TARGET} with the profile (PGO step 3 of 3)")
    run_make(tree, jobs, log, f"{CCOPT} {PGO_USE}", f"{LDFLAGS} {PGO_USE}")


def build(key: str, inputs: dict, jobs: int) -> Path:
    """Build into <cache>/ns2/<key>/ and return that directory."""
    entry = cache_root() / "ns2" / key
    work = cache_root() / "ns2" / f"{key}.build"  # fixed path: same flags, same bytes
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    log_path = work / "build.log"
    tarball = ensure_tarball()
    patches = read_series()
    try:
        with open(log_path, "w") as log:
            say(f"extracting {tarball.name}")
            run_logged(["tar", "-xf", str(tarball), "-C", str(work)], work, log, "tar")
            tree = work / TREE_NAME
            for patch in patches:
                say(f"applying {patch.name}")
                run_logged(
                    ["patch", "-p1", "--forward", "--batch", "-i", str(patch)],
                    tree, log, f"patch {patch.name}",
                )  # fmt: skip
            prefix = work / "debian-prefix"
            make_prefix(prefix)
            with_dirs = [f"--with-{p}={prefix}" for p in ("tcl", "otcl", "tclcl")]
            say("configure")
            run_logged(["./configure", *with_dirs, *CONFIGURE_ARGS], tree, log, "configure")
            build_objects(tree, work, jobs, log)
        binary = tree / MAKE_TARGET
        check_optimised(binary)
        staged = cache_root() / "ns2" / f"{key}.partial"
        shutil.rmtree(staged, ignore_errors=True)
        staged.mkdir()
        shutil.copy2(binary, staged / "ns")
        shutil.copy2(log_path, staged / "build.log")
        write_manifest(staged, key, inputs)
        shutil.rmtree(entry, ignore_errors=True)
        staged.replace(entry)
    except BuildError as err:
        kept = cache_root() / "ns2" / f"{key}.failed.log"
        if log_path.exists():
            shutil.copyfile(log_path, kept)
            tail = "\n".join(kept.read_text(errors="replace").splitlines()[-30:])
            raise BuildError(f"{err}\n--- last lines of {kept} ---\n{tail}") from None
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return entry


def write_manifest(entry: Path, key: str, inputs: dict) -> None:
    binary = entry / "ns"
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "key": key,
        "tarball": {"name": TARBALL_NAME, "sha256": inputs["tarball_sha256"]},
        "series": {
            "sha256": series_sha256(inputs["patches"]),
            "patches": [{"name": n, "sha256": s} for n, s in inputs["patches"]],
        },
        "binary": {"sha256": sha256_file(binary), "bytes": binary.stat().st_size},
        "compiler": inputs["compiler"],
        "flags": {
            "CCOPT": inputs["ccopt"],
            "LDFLAGS": inputs["ldflags"],
            "pgo": inputs["pgo"],
            "configure": inputs["configure_args"],
            "make_target": inputs["make_target"],
        },
        "packages": inputs["packages"],
        "build_script_sha256": inputs["build_script_sha256"],
    }
    (entry / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def install(entry: Path, out: Path) -> None:
    """Copy ns + manifest.json to `out`; files already identical are left alone."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("ns", "manifest.json"):
        src, dst = entry / name, out / name
        if dst.is_file() and sha256_file(dst) == sha256_file(src):
            continue
        tmp = out / f".{name}.tmp"
        shutil.copyfile(src, tmp)
        shutil.copymode(src, tmp)
        tmp.replace(dst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", nargs="?", default="build", choices=["build", "key", "tarball"])
    parser.add_argument("--out", type=Path, default=Path("build/ns2"), help="where to install ns and manifest.json")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel make jobs")
    parser.add_argument("--log", type=Path, help="also write progress and errors to this file")
    args = parser.parse_args(argv)
    global _progress_log
    if args.log:
        args.log.parent.mkdir(parents=True, exist_ok=True)
        _progress_log = open(args.log, "w")  # noqa: SIM115 -- closed in the finally below
    try:
        if args.action == "tarball":
            print(ensure_tarball())
            return 0
        inputs = key_inputs()
        key = cache_key(inputs)
        if args.action == "key":
            print(key)
            return 0
        entry = cache_root() / "ns2" / key
        entry.parent.mkdir(parents=True, exist_ok=True)
        # One build per key at a time: a second invocation (another checkout, a workflow beside a manual
        # build) waits here, then finds the first one's binary in the cache instead of sharing its work tree.
        with open(entry.parent / f"{key}.lock", "w") as lock:
            if not _try_lock(lock):
                say(f"another build of {key} is running; waiting for it")
                fcntl.flock(lock, fcntl.LOCK_EX)
            if (entry / "manifest.json").is_file() and (entry / "ns").is_file():
                say(f"cached build {key} ({entry})")
            else:
                say(f"building {key}")
                entry = build(key, inputs, args.jobs)
        install(entry, args.out)
        say(f"{args.out / 'ns'} ready (key {key})")
        return 0
    except BuildError as err:
        message = f"ns2 build: {err}\nrerun with: python3 ns2-patches/ns2_build.py --out {args.out}"
        print(message, file=sys.stderr)
        if _progress_log is not None:
            _progress_log.write(message + "\n")
        return 1
    finally:
        if _progress_log is not None:
            _progress_log.close()
            _progress_log = None


def _try_lock(handle) -> bool:
    """Take an exclusive lock on an open file without waiting; False if another process holds it."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def build_in_workflow(out: str | Path, jobs: int, log: str | Path) -> None:
    """Snakemake's entry point: like the command line, but a failure raises."""
    if main(["--out", str(out), "--jobs", str(jobs), "--log", str(log)]) != 0:
        raise RuntimeError(f"ns-2 build failed; the reason is printed above and in {log}")


if __name__ == "__main__":
    sys.exit(main())
