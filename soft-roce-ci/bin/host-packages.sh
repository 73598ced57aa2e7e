# Sourced by ./run-demo.sh, ./run-tests.sh, .ci/run and bin/testbed: the one list of what this machine needs, and
# the one function that installs it (as root, on Debian or Ubuntu) or says the exact command to run (not root).
#
# Each entry is PACKAGE:PROOF. The proof is what shows the package is there without asking dpkg, so that a tool
# installed another way (a qemu built from source, a PATH of one's own) counts too:
#   PACKAGE:command     a command found on the PATH (or in /usr/sbin, /sbin, where root's tools live)
#   PACKAGE:/path       a file that exists
#   PACKAGE             dpkg says it is installed (libraries)
# Hooks (tests): PANAMA_APT_GET is the apt-get to run (default apt-get); PANAMA_ASSUME_NOT_ROOT=1 takes root for
# an ordinary user.

# The testbed VM: qemu boots it; debootstrap, mke2fs, cpio and xz build its image (soft-roce-ci/image/build-image.sh,
# the first time only); qemu-img makes nothing today but comes with qemu's tools on every machine the testbed ran on.
# debian-archive-keyring: debootstrap verifies the Debian mirror with it (preinstalled on Debian, not on Ubuntu).
host_packages_testbed=(qemu-system-x86:qemu-system-x86_64 qemu-utils:qemu-img debootstrap:debootstrap
  e2fsprogs:mke2fs cpio:cpio xz-utils:xz
  debian-archive-keyring:/usr/share/keyrings/debian-archive-keyring.gpg)
# The host-side tests: RdmaCoreTest loads the real rdma-core libraries (without a device); AbiVersionsTest compiles
# the ABI probe against rdma-core 44's and 56's headers with gcc.
host_packages_tests=(gcc:gcc libibverbs1 librdmacm1)
# CI only: it clones the project.
host_packages_ci=(git:git)

# Prints the entries of the given list that this machine lacks, one per line.
missing_host_packages() {
  local entry package proof
  for entry in "$@"; do
    package=${entry%%:*}
    proof=${entry#*:}
    [[ $entry == *:* ]] || proof=""
    case $proof in
      "") dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || echo "$entry" ;;
      /*) [[ -e $proof ]] || echo "$entry" ;;
      *) PATH="$PATH:/usr/sbin:/sbin" command -v "$proof" >/dev/null 2>&1 || echo "$entry" ;;
    esac
  done
}

# Joins its arguments with ", ".
join_host_list() { local out="" x; for x in "$@"; do out+="${out:+, }$x"; done; echo "$out"; }

# "qemu-system-x86_64 (qemu-system-x86)" for an entry: what is missing, and which package brings it.
describe_host_package() {
  local entry=$1 package=${1%%:*} proof=${1#*:}
  if [[ $entry != *:* ]]; then echo "$package"; else echo "$proof ($package)"; fi
}

# ensure_host_packages WHO ENTRY...: returns 0 when nothing is missing or all of it was installed; otherwise says
# what is missing and the exact command that installs it, and returns 1 (the caller stops). WHO prefixes the lines.
ensure_host_packages() {
  local who=$1; shift
  local missing=() entry packages=() described=()
  mapfile -t missing < <(missing_host_packages "$@")
  ((${#missing[@]} == 0)) && return 0
  for entry in "${missing[@]}"; do
    packages+=("${entry%%:*}")
    described+=("$(describe_host_package "$entry")")
  done
  local apt=${PANAMA_APT_GET:-apt-get}
  local command="apt-get install -y --no-install-recommends ${packages[*]}"
  if [[ $(id -u) != 0 || ${PANAMA_ASSUME_NOT_ROOT:-} == 1 ]]; then
    printf '[%s] this machine lacks: %s.\n' "$who" "$(join_host_list "${described[@]}")" >&2
    printf '[%s] Install them once as root, then run this again:\n    sudo %s\n' "$who" "$command" >&2
    return 1
  fi
  if ! PATH="$PATH:/usr/sbin:/sbin" command -v "$apt" >/dev/null 2>&1; then
    printf '[%s] this machine lacks: %s, and has no apt-get to install them (the project knows Debian and Ubuntu);\n' \
      "$who" "$(join_host_list "${described[@]}")" >&2
    printf '[%s] install the equivalent packages with this system'"'"'s package manager.\n' "$who" >&2
    return 1
  fi
  printf '[%s] installing what this machine lacks: %s\n' "$who" "${packages[*]}" >&2
  if ! DEBIAN_FRONTEND=noninteractive "$apt" update -q >&2 \
      || ! DEBIAN_FRONTEND=noninteractive "$apt" install -y -q --no-install-recommends "${packages[@]}" >&2; then
    printf '[%s] installing failed (see apt-get above); the command was:\n    %s\n' "$who" "$command" >&2
    return 1
  fi
  mapfile -t missing < <(missing_host_packages "$@")
  if ((${#missing[@]})); then
    described=()
    for entry in "${missing[@]}"; do described+=("$(describe_host_package "$entry")"); done
    printf '[%s] apt-get installed the packages, but these are still not found: %s\n' "$who" \
      "$(join_host_list "${described[@]}")" >&2
    return 1
  fi
  printf '[%s] installed: %s\n' "$who" "${packages[*]}" >&2
}
