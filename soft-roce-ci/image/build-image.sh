#!/usr/bin/env bash
# Builds a soft-RoCE / soft-iWARP testbed image from Debian packages only.
#
#   build-image.sh OUT_DIR [SUITE]          SUITE: trixie (default) or bookworm, as in suite-<SUITE>.conf
#
# OUT_DIR receives: vmlinuz, initrd.img (a tiny busybox initramfs that mounts the root disk), rootfs.img (raw ext4),
# manifest.txt (versions), logs/. The caller (bin/testbed) keys OUT_DIR by the suite and the hash of the recipe
# (this script, packages.txt, suite-<SUITE>.conf, the stage-2 init, the host JDK copied in) and moves it into place
# only when every step succeeded. Every step logs to logs/<step>.log; a failing step stops the build with a message
# naming the step and its log.
#
# Needs root (debootstrap, chroot, mount) and network access to a Debian mirror. A suite whose conf says
# guest_jdk=host also needs TESTBED_GUEST_JDK, the host's JDK 25 to copy in.
set -euo pipefail

out=${1:?usage: build-image.sh OUT_DIR [SUITE]}
suite=${2:-trixie}
here=$(cd "$(dirname "$0")" && pwd)
[[ -f $here/suite-$suite.conf ]] || { echo "[image] unknown suite $suite (no $here/suite-$suite.conf)" >&2; exit 1; }
packages=() guest_jdk="" container_rootfs=""
# shellcheck source=/dev/null
source "$here/suite-$suite.conf"
mkdir -p "$out/logs"
root="$out/rootfs"
logs="$out/logs"

say() { printf '[image] %s\n' "$*" >&2; }

# run_step NAME COMMAND...: runs the command with its output in logs/NAME.log and reports its time.
run_step() {
  local name=$1; shift
  local start=$SECONDS
  say "step $name ..."
  # a subshell that is not the condition of an `if` or `||`: there errexit would be off, and a failing command in
  # the middle of a step would go unnoticed
  set +e
  (set -e; "$@") >"$logs/$name.log" 2>&1
  local rc=$?
  set -e
  if ((rc != 0)); then
    say "FAILED: step '$name' (exit $rc; log: $logs/$name.log); its last lines:"
    tail -n 25 "$logs/$name.log" | sed 's/^/[image]   /' >&2
    exit 1
  fi
  say "step $name done in $((SECONDS - start)) s"
  printf '%s %s\n' "$name" "$((SECONDS - start))" >>"$logs/times.txt"
}

# The Debian mirror: TESTBED_MIRROR, else the one the host's apt already uses (so no host name is baked in here).
mirror() {
  if [[ -n ${TESTBED_MIRROR:-} ]]; then echo "$TESTBED_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
          | awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
  if [[ -z $uri ]]; then
    uri=$(cat /etc/apt/sources.list 2>/dev/null \
            | awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:.*\/debian\/?$/) { print $i; exit } }')
  fi
  [[ -n $uri ]] || { say "no Debian mirror found in /etc/apt; set TESTBED_MIRROR=http://<mirror>/debian"; exit 1; }
  echo "$uri"
}

mounted=()
cleanup() {
  local m
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT

chroot_mounts() {
  local d
  for d in proc sys dev dev/pts; do
    mkdir -p "$root/$d"
    case $d in
      proc) mount -t proc proc "$root/proc" ;;
      sys) mount -t sysfs sys "$root/sys" ;;
      dev) mount --bind /dev "$root/dev" ;;
      dev/pts) mount -t devpts devpts "$root/dev/pts" ;;
    esac
    mounted+=("$root/$d")
  done
}

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }

packages() { grep -v -E '^\s*(#|$)' "$here/packages.txt" | tr '\n' ' '; echo "${packages[@]}"; }

step_debootstrap() {
  debootstrap --variant=minbase --components=main --include=ca-certificates "$suite" "$root" "$(mirror)"
}

step_packages() {
  # No daemon may start inside the build chroot (nfs-kernel-server, rpcbind would try).
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod +x "$root/usr/sbin/policy-rc.d"
  in_root apt-get update
  # shellcheck disable=SC2046
  in_root apt-get install -y --no-install-recommends $(packages)
}

kernel_version() { ls "$root/lib/modules" | sort -V | tail -n 1; }
# 6.12.117+deb13-amd64 -> 6.12, 6.1.0-40-amd64 -> 6.1: the series of linux-source-X.Y and linux-kbuild-X.Y
kernel_series() { kernel_version | cut -d. -f1,2; }

# Debian's kernels are built with '# CONFIG_RDMA_SIW is not set': build siw.ko from the same kernel's sources.
step_siw() {
  local kver srcver kimgver series
  kver=$(kernel_version)
  series=$(kernel_series)
  grep -E '^(CONFIG_RDMA_RXE|# CONFIG_RDMA_SIW|CONFIG_RDMA_SIW)' "$root/boot/config-$kver" || true
  in_root apt-get install -y --no-install-recommends "linux-headers-$kver" "linux-source-$series" xz-utils make bc
  srcver=$(in_root dpkg-query -W -f '${Version}' "linux-source-$series")
  kimgver=$(in_root dpkg-query -W -f '${Version}' "linux-image-$kver")
  echo "kernel $kver image $kimgver source $srcver"
  [[ $srcver == "$kimgver" ]] || echo "WARNING: linux-source $srcver differs from linux-image $kimgver"
  rm -rf "$root/tmp/siw" && mkdir -p "$root/tmp/siw"
  tar -C "$root/tmp/siw" --strip-components=5 -xf "$root/usr/src/linux-source-$series.tar.xz" \
    --wildcards "linux-source-$series/drivers/infiniband/sw/siw/*"
  ls "$root/tmp/siw"
  in_root make -C "/usr/src/linux-headers-$kver" M=/tmp/siw CONFIG_RDMA_SIW=m modules
  install -D -m 0644 "$root/tmp/siw/siw.ko" "$root/lib/modules/$kver/updates/siw.ko"
  in_root depmod -a "$kver"
  in_root modinfo -k "$kver" siw
  rm -rf "$root/tmp/siw"
  in_root apt-get purge -y "linux-source-$series" "linux-headers-$kver" 'linux-headers-*-common' \
    "linux-kbuild-$series" bc
  in_root apt-get autoremove -y --purge
}

# The guest's JDK 25: a Debian package's (installed with the packages), or a copy of the host's.
java_home() { if [[ $guest_jdk == host ]]; then echo /usr/lib/jvm/jdk-25; else echo "$guest_jdk"; fi; }

step_jdk() {
  if [[ $guest_jdk == host ]]; then
    local src=${TESTBED_GUEST_JDK:?TESTBED_GUEST_JDK: the host JDK 25 to copy into the image}
    echo "copying $src"
    cat "$src/release"
    mkdir -p "$root/usr/lib/jvm"
    cp -a "$(readlink -f "$src")" "$root$(java_home)"
    rm -rf "$root$(java_home)"/{man,demo,sample,jmods,lib/src.zip}
    du -sh "$root$(java_home)"
  fi
  in_root "$(java_home)/bin/java" -version
}

step_configure() {
  echo testbed >"$root/etc/hostname"
  printf '127.0.0.1 localhost\n::1 localhost\n127.0.1.1 testbed\n' >"$root/etc/hosts"
  # PID 1 of the guest: mounts the job share and runs the job's init script (it lives in the work tree, so editing
  # it does not rebuild the image).
  install -m 0755 "$here/guest-stage2" "$root/sbin/testbed-init"
  mkdir -p "$root/job" "$root/run/testbed" "$root/etc/testbed"
  # read by the job's init script (guest/testbed-init.sh)
  printf 'TESTBED_IMAGE=%s\nJAVA_HOME=%s\n' "$suite" "$(java_home)" >"$root/etc/testbed/image.env"
  in_root apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
  # the manifest records what the tests run against
  {
    echo "suite $suite"
    echo "kernel $(kernel_version)"
    grep -E '^CONFIG_RDMA_RXE' "$root/boot/config-$(kernel_version)"
    in_root dpkg-query -W -f '${Package} ${Version}\n' linux-image-amd64 rdma-core 'libibverbs1*' 'librdmacm1*' \
      perftest nfs-kernel-server ndctl iproute2 libc6
    echo "java $(java_home): $(in_root "$(java_home)/bin/java" -version 2>&1 | sed -n 2p)"
  } >"$out/manifest.txt"
  cat "$out/manifest.txt"
}

# A tiny initramfs: busybox + the modules needed to mount an ext4 root on virtio-blk (Debian's own initrd takes
# about 21 s to reach init under TCG; this one about 8 s).
step_initramfs() {
  local kver ir mod
  kver=$(kernel_version)
  ir="$out/initramfs"
  rm -rf "$ir" && mkdir -p "$ir"/{bin,dev,proc,sys,newroot,lib/modules}
  cp "$root/usr/bin/busybox" "$ir/bin/busybox"
  : >"$ir/modules.order"
  for mod in $(in_root modprobe -a -S "$kver" --show-depends virtio_pci virtio_blk ext4 | awk '$1 == "insmod" { print $2 }'); do
    local base
    base=$(basename "$mod")
    base=${base%.xz}; base=${base%.zst}; base=${base%.gz}
    grep -qx "$base" "$ir/modules.order" && continue
    case $mod in
      *.xz) xz -dc "$root$mod" >"$ir/lib/modules/$base" ;;
      *.zst) zstd -dc "$root$mod" >"$ir/lib/modules/$base" ;;
      *.gz) gzip -dc "$root$mod" >"$ir/lib/modules/$base" ;;
      *) cp "$root$mod" "$ir/lib/modules/$base" ;;
    esac
    echo "$base" >>"$ir/modules.order"
  done
  cat "$ir/modules.order"
  install -m 0755 "$here/initramfs-init" "$ir/init"
  (cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.img"
  rm -rf "$ir"
  cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz"
}

# The privileged-container testbed's root file system (soft-roce-ci/container), as a tar the guest hands to
# `docker import`: built here on the host, so that the emulated guest only imports it. Only for images whose conf
# says container_rootfs=yes (trixie: its docker.io runs the container phase of CI).
step_container() {
  [[ $container_rootfs == yes ]] || { echo "not in this image"; return 0; }
  mkdir -p "$root/var/lib/testbed"
  "$here/../container/build-rootfs.sh" "$root/var/lib/testbed/container-rootfs.tar" "$(mirror)"
  echo "container rootfs: $(du -m "$root/var/lib/testbed/container-rootfs.tar" | cut -f1) MB" >>"$out/manifest.txt"
}

step_rootfs_image() {
  local size_mb
  size_mb=$(( $(du -sm "$root" | cut -f1) * 13 / 10 + 512 ))
  rm -f "$out/rootfs.img"
  mke2fs -q -t ext4 -L testbed-root -d "$root" "$out/rootfs.img" "${size_mb}M"
  ls -la "$out/rootfs.img"
}

run_step debootstrap step_debootstrap
chroot_mounts
run_step packages step_packages
run_step siw step_siw
run_step jdk step_jdk
run_step configure step_configure
run_step initramfs step_initramfs
run_step container step_container
cleanup; mounted=()
run_step rootfs-image step_rootfs_image
rm -rf "$root"
say "image ready in $out"
