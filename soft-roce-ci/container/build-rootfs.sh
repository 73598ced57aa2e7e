#!/usr/bin/env bash
# Builds the root file system of the privileged-container image from Debian packages only (no registry): a
# debootstrap of Debian 13 (trixie, minbase) with packages.txt installed, written as one uncompressed tar that
# `docker import` turns into an image (import-image.sh). The testbed VM image carries this tar (build-image.sh), and a
# Docker host without the VM builds it the same way.
#
#   build-rootfs.sh OUT_TAR [MIRROR]     MIRROR: a Debian mirror (default TESTBED_MIRROR, else the host's apt one)
#
# Needs root (debootstrap, chroot) and debootstrap able to verify Debian 13 (a Debian host has the keyring; on
# Ubuntu: apt-get install debootstrap debian-archive-keyring). Logs go to stderr; takes about 2 minutes.
set -euo pipefail
out=${1:?usage: build-rootfs.sh OUT_TAR [MIRROR]}
here=$(cd "$(dirname "$0")" && pwd)
say() { printf '[container-rootfs] %s\n' "$*" >&2; }

mirror=${2:-${TESTBED_MIRROR:-}}
if [[ -z $mirror ]]; then
  # the Debian mirror the host's apt already uses (deb822 .sources, else sources.list)
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
             | awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
  [[ -n $mirror ]] || mirror=$(cat /etc/apt/sources.list 2>/dev/null \
             | awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:.*\/debian\/?$/) { print $i; exit } }')
fi
[[ -n $mirror ]] || { say "no Debian mirror in /etc/apt (an Ubuntu host has none): pass one, or set TESTBED_MIRROR=http://<mirror>/debian"; exit 1; }
keyring=()
[[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)

work=$(mktemp -d "${TMPDIR:-/tmp}/container-rootfs.XXXXXX")
root="$work/root"
cleanup() {
  umount -l "$root/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

say "debootstrap trixie from $mirror"
debootstrap --variant=minbase --components=main "${keyring[@]}" trixie "$root" "$mirror" >&2
# No daemon may start in the chroot; the JRE's postinst needs /proc.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }
in_root apt-get update >&2
# shellcheck disable=SC2046
in_root apt-get install -y --no-install-recommends $(grep -v -E '^\s*(#|$)' "$here/packages.txt") >&2
in_root apt-get clean
umount "$root/proc"
rm -f "$root/usr/sbin/policy-rc.d"
rm -rf "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* \
  "$root"/var/cache/debconf/*-old "$root"/var/log/*.log
# what the image runs against, for the log and the image's label
in_root dpkg-query -W -f '${Package} ${Version}\n' rdma-core ibverbs-providers perftest iproute2 openjdk-25-jre-headless >&2
# only the tree: proc, sys and dev stay empty mount points (the container runtime mounts them)
mkdir -p "$(dirname "$out")"
tar --numeric-owner --xattrs -C "$root" --exclude=./proc/* --exclude=./sys/* --exclude=./dev/* -cf "$out.tmp" .
mv "$out.tmp" "$out"
say "wrote $out ($(du -m "$out" | cut -f1) MB)"
