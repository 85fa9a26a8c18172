# ns2-repro in a container: our patched ns-2 and the whole pipeline on Debian 12.
#
#   docker build -t ns2-repro .
#   docker run --rm -v "$PWD/out:/out" ns2-repro                                  # reproduce-all
#   docker run --rm -v "$PWD/out:/out" ns2-repro --profile profiles/smoke reproduce-all
#
# Arguments after the image name are Snakemake's (default: reproduce-all). Results land
# in the folder mounted at /out: out/results (default profile), out/results-smoke (smoke
# profile), out/logs. README, "Replicate in a container", has podman and the run times.

# Debian's official bookworm image of 2025-12-29 (Debian 12.12), the amd64 image by
# digest as published in debuerreotype's checksums: a tag can move, the digest cannot.
# Any bookworm base works (CI builds on a local debootstrap of bookworm: .ci/container).
ARG BASE_IMAGE=docker.io/library/debian:bookworm-20251229@sha256:4216e8fe27fdd803d2822d08ed9de39825a41a47e34c32b71a23ac074f91eaf4
FROM ${BASE_IMAGE}

ENV DEBIAN_FRONTEND=noninteractive \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /ns2-repro

# Layers from least to most often changed, so that editing a figure module reuses the
# ns-2 layer and editing a patch rebuilds ns-2 (and what follows it) only.

# 1. Debian packages: the README set-up's own list (APT_PACKAGES in the Makefile).
COPY Makefile ./
RUN apt-get update -q \
    && apt-get install -y -q --no-install-recommends make \
    && make apt \
    && rm -rf /var/lib/apt/lists/*

# 2. The pinned Python environment (requirements.txt) in .venv, as on the host.
COPY requirements.txt ./
RUN make requirements PYTHON=/usr/bin/python3

# 3. Our ns-2: Debian's pinned tarball + ns2-patches/series, built by the host's script.
#    The binary and its manifest (hashes of tarball, series, binary; compiler; flags)
#    stay in the script's cache (/root/.cache/ns2-repro), so the workflow's build step
#    finds them; every run copies manifest.json into its run directory.
COPY ns2-patches/ ns2-patches/
RUN .venv/bin/python ns2-patches/ns2_build.py --out build/ns2 \
    && rm -rf /root/.cache/ns2-repro/src \
    && cat build/ns2/manifest.json

# 4. The project itself.
COPY . .
RUN make venv \
    && ln -s /out/results results \
    && ln -s /out/results-smoke results-smoke \
    && ln -s /out/logs logs

VOLUME /out
# experiments.entrypoint runs Snakemake, after one check that Snakemake reports with a traceback: a target
# written after --config or --configfile (one line naming the word and the fix, exit 2).
ENTRYPOINT ["/bin/sh", "-c", "mkdir -p /out/results /out/results-smoke /out/logs && exec .venv/bin/python -m experiments.entrypoint \"$@\"", "snakemake"]
CMD ["reproduce-all"]
