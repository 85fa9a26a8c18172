# Stage: build our patched ns-2 with ns2-patches/ns2_build.py, reusing the
# cached binary when the tarball, patch series and flags are unchanged.

import sys

sys.path.insert(0, str(Path(workflow.basedir) / "ns2-patches"))
import ns2_build


rule build_ns2:
    input:
        script="ns2-patches/ns2_build.py",
        series="ns2-patches/series",
        patches=glob("ns2-patches/*.patch"),
    output:
        ns="build/ns2/ns",
        manifest="build/ns2/manifest.json",
    log:
        layout.log_file(RESULTS, "build_ns2.log"),
    threads: workflow.cores
    run:
        ns2_build.build_in_workflow(Path(output.ns).parent, threads, log[0])
