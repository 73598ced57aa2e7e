#!/usr/bin/env bash
# Puts the privileged-container image into the local Docker, made only from Debian packages: nothing is pulled from
# any registry. With a root file-system tar (the testbed VM image carries one, built by build-rootfs.sh), it imports
# that; without, it builds one first (root, debootstrap; about 2 minutes) unless the image of this recipe is there.
#
#   import-image.sh [ROOTFS_TAR]        image name: TESTBED_CONTAINER_IMAGE (default panama-rdma/soft-roce-ci:trixie)
#
# The image carries the hash of its recipe (build-rootfs.sh, packages.txt) as the label org.panamardma.recipe, so a
# changed recipe is rebuilt and an unchanged one is not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
image=${TESTBED_CONTAINER_IMAGE:-panama-rdma/soft-roce-ci:trixie}
say() { printf '[container-image] %s\n' "$*" >&2; }

recipe=$(cat "$here/build-rootfs.sh" "$here/packages.txt" | sha256sum | cut -c1-16)
tar=${1:-}
if [[ -z $tar ]]; then
  have=$(docker image inspect -f '{{ index .Config.Labels "org.panamardma.recipe" }}' "$image" 2>/dev/null || true)
  if [[ $have == "$recipe" ]]; then
    say "$image is there (recipe $recipe)"
    exit 0
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/container-image.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  tar="$tmp/rootfs.tar"
  "$here/build-rootfs.sh" "$tar"
fi
start=$SECONDS
docker import --change "LABEL org.panamardma.recipe=$recipe" --change 'CMD ["/bin/bash"]' "$tar" "$image" >/dev/null
say "imported $image (recipe $recipe) from $tar in $((SECONDS - start)) s"
