#!/usr/bin/env bash
# Build a local stand-in for python:3.11-slim without any image registry, and print its tag.
#
#   docker build --build-arg BASE="$(sudo docker/local-base.sh)" -t tilesweep .
#
# A minimal Debian root file system made with debootstrap (Debian's python3.11, venv and
# CA certificates), a virtual environment in /opt/venv first on PATH (so `python` and `pip`
# act as in the official image: pip installs for everyone, no --break-system-packages),
# imported with `docker import`. The tag carries a hash of this script and of the CA
# bundle it copies, so the image is built once per machine and rebuilt only when either
# changes. Needs root (debootstrap) and Debian's archive (TILESWEEP_DEBIAN_MIRROR).
#
# Registries reached through TLS interception: the host's CA bundle
# (TILESWEEP_CA_BUNDLE, default /etc/ssl/certs/ca-certificates.crt) replaces Debian's in the
# image and /etc/pip.conf points pip at it; PIP_INDEX_URL, when set, goes there too.
set -euo pipefail

suite=${TILESWEEP_DEBIAN_SUITE:-bookworm}          # bookworm's python3 is 3.11
mirror=${TILESWEEP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ca_bundle=${TILESWEEP_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
index_url=${PIP_INDEX_URL:-}

inputs=$(cat "$0"; echo "$suite $index_url"; if [ -f "$ca_bundle" ]; then cat "$ca_bundle"; fi)
tag=${1:-tilesweep-base:$suite-py3.11-$(printf '%s' "$inputs" | sha256sum | cut -c1-12)}

if docker image inspect "$tag" >/dev/null 2>&1; then
    echo "$tag"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "local-base.sh: debootstrap needs root; run it with sudo (image $tag is not built yet)" >&2
    exit 2
fi
if ! command -v debootstrap >/dev/null; then
    echo "local-base.sh: debootstrap is missing; install it with: apt-get install debootstrap" >&2
    exit 2
fi

work=$(mktemp -d /var/tmp/tilesweep-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
echo "local-base.sh: debootstrap $suite from $mirror into $root (a few minutes, once)" >&2
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

if [ -f "$ca_bundle" ]; then
    cp "$ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"
fi
{
    echo "[global]"
    echo "cert = /etc/ssl/certs/ca-certificates.crt"
    if [ -n "$index_url" ]; then echo "index-url = $index_url"; fi
} >"$root/etc/pip.conf"
chroot "$root" python3 -m venv /opt/venv
chroot "$root" /opt/venv/bin/python --version >&2
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/tmp/*

tar -C "$root" --numeric-owner -c . | docker import \
    --change 'ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python"]' \
    --message "debootstrap $suite, python3.11 venv in /opt/venv" - "$tag" >/dev/null
echo "$tag"
