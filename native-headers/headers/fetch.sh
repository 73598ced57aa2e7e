#!/bin/sh
# Downloads and unpacks the rdma-core header sets of native-headers/headers/sets (Debian packages), once: each set
# goes to $CACHE/<name>-<version>/ (an unpacked root: usr/include, usr/lib/<multiarch>) with a MANIFEST listing the
# packages; a set already there is not fetched again, so only the first run needs the network (a Debian mirror).
#
#   native-headers/headers/fetch.sh all          # every set; prints one directory per set
#   native-headers/headers/fetch.sh debian12     # one set
#   native-headers/headers/fetch.sh --dir debian13   # only print where the set is (or would be), fetch nothing
#
# CACHE is $PANAMA_RDMA_HEADERS, else ${XDG_CACHE_HOME:-$HOME/.cache}/panama-rdma/headers. The mirror is
# $DEBIAN_MIRROR (default http://deb.debian.org/debian). Needs apt-get and dpkg-deb (Debian or Ubuntu) and
# Debian's archive keyring (/usr/share/keyrings/debian-archive-keyring.gpg); works without root: apt runs with a
# private configuration under $CACHE/.apt/<suite> and never touches the machine's own sources or packages.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sets=$here/sets
cache=${PANAMA_RDMA_HEADERS:-${XDG_CACHE_HOME:-$HOME/.cache}/panama-rdma/headers}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

usage() { echo "usage: $0 [--dir] all|SET...   (sets: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$sets"))" >&2; exit 2; }
only_dir=false
if [ "${1:-}" = --dir ]; then only_dir=true; shift; fi
[ $# -ge 1 ] || usage
if [ "$1" = all ]; then
  set -- $(awk '!/^#/ && NF { print $1 }' "$sets")
fi

fetch() { # name suite version
  name=$1 suite=$2 version=$3
  dir=$cache/$name-$version
  if $only_dir || [ -f "$dir/MANIFEST" ]; then
    echo "$dir"
    return
  fi
  for tool in apt-get apt-cache dpkg-deb; do
    command -v $tool >/dev/null || { echo "fetch.sh: needs $tool (Debian/Ubuntu) to fetch $name" >&2; exit 1; }
  done
  [ -f "$keyring" ] || { echo "fetch.sh: needs $keyring (package debian-archive-keyring)" >&2; exit 1; }
  apt=$cache/.apt/$suite
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
  echo "deb [signed-by=$keyring] $mirror $suite main" > "$apt/sources.list"
  : > "$apt/status"
  set -- -q -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null \
    -o Dir::Etc::preferencesparts=/dev/null -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status" \
    -o Dir::Cache="$apt/cache" -o APT::Sandbox::User="$(id -un)"
  echo "fetch.sh: $name: apt-get update ($suite)" >&2
  apt-get "$@" update >&2
  # the library packages of the same version (named libibverbs1 / librdmacm1, or librdmacm1t64 since trixie)
  libs=$(apt-cache "$@" show "libibverbs-dev=$version" "librdmacm-dev=$version" | sed -n 's/^Depends: //p' \
    | tr ',' '\n' | sed -n "s/^ *\(lib\(ibverbs\|rdmacm\)[0-9][a-z0-9]*\) (= $version)\$/\1/p" | sort -u)
  [ -n "$libs" ] || { echo "fetch.sh: $suite has no libibverbs-dev/librdmacm-dev $version (update $sets?)" >&2; exit 1; }
  rm -f "$apt/debs"/*.deb
  pkgs="libibverbs-dev=$version librdmacm-dev=$version"
  for l in $libs; do pkgs="$pkgs $l=$version"; done
  (cd "$apt/debs" && apt-get "$@" download $pkgs linux-libc-dev >&2)
  tmp=$dir.tmp.$$
  rm -rf "$tmp"
  mkdir -p "$tmp"
  for deb in "$apt/debs"/*.deb; do
    dpkg-deb -x "$deb" "$tmp"
    echo "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)" >> "$tmp/MANIFEST.tmp"
  done
  { echo "# $name: Debian $suite, fetched by native-headers/headers/fetch.sh from $mirror"; sort "$tmp/MANIFEST.tmp"; } > "$tmp/MANIFEST"
  rm -f "$tmp/MANIFEST.tmp"
  rm -rf "$apt" # the suite's package lists (20 MB): not needed once the set is unpacked
  rm -rf "$dir"
  mv "$tmp" "$dir"
  echo "fetch.sh: $name: $(grep -v '^#' "$dir/MANIFEST" | paste -sd, -) -> $dir" >&2
  echo "$dir"
}

for want in "$@"; do
  line=$(awk -v n="$want" '!/^#/ && $1 == n' "$sets")
  [ -n "$line" ] || usage
  fetch $line
done
