#!/bin/bash
# PID 1 of the testbed guest (exec'd by the image's /sbin/testbed-init from the job share /job).
#
# Reads /job/job.env (written by bin/testbed on the host), mounts the host's work tree at the same path, brings up
# the RDMA devices (setup-rdma.sh), runs the job's command with a time limit, writes its exit code to /job/rc and
# always powers the VM off -- also when something here fails, because PID 1 exiting makes the kernel panic, and the
# kernel is booted with panic=-1 and qemu with -no-reboot.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
# No limit on locked (pinned) memory, as rdma-core recommends for RDMA users. Kernel 6.1's siw counts every memory
# registration against RLIMIT_MEMLOCK (8 MiB by default) even for root; later kernels' siw, and rxe, exempt
# CAP_IPC_LOCK. Without this, siw tests registering more than 8 MiB at once fail with ENOMEM in the bookworm image.
ulimit -l unlimited

# Whether any process but this one (PID 1) and the kernel's threads is left; zombies (empty cmdline) do not count.
other_processes() {
  local d
  for d in /proc/[0-9]*; do
    [[ ${d#/proc/} != 1 && -s $d/cmdline ]] && return 0
  done
  return 1
}

# Powers the VM off with its root file system clean. The root is ext4 on the virtual disk, mounted read-write;
# what the command left running (rpcbind and rpc.mountd of the NFS tests, dockerd, a server of the demo) may hold
# files there open for writing, which makes a read-only remount fail, and the disk then went away under a file
# system that was still writing: "EXT4-fs error (device vda) ... I/O error while writing superblock" at power-off
# (issue 24). So every other process ends first (TERM; KILL after two seconds), then everything but the root is
# unmounted (NFS forced and lazily: its server may be one of the processes just ended), the root is remounted
# read-only, and only then the kernel powers off. While it does, this script must not touch the disk, which goes
# away first: an external `sleep` read its inode from it ("EXT4-fs error ... comm testbed-init.sh: unable to read
# itable block" after "sysrq: Power Off"), so it waits with bash's own `read` on a FIFO in /dev (devtmpfs: memory;
# not a process substitution: it needs a child process, and a failed one under set -u ended PID 1, which panics
# the kernel), or spins on builtins if that cannot be made.
power_off() {
  kill -TERM -1 2>/dev/null
  local i
  for i in $(seq 1 20); do other_processes || break; sleep 0.1; done
  kill -KILL -1 2>/dev/null
  for i in $(seq 1 20); do other_processes || break; sleep 0.1; done
  sync
  umount -a -f -l -t nfs,nfs4 2>/dev/null
  umount -a 2>/dev/null # the root and the file systems the kernel holds (proc, sys, dev) stay
  mount -o remount,ro / 2>/dev/null || log "the root file system stays read-write (still busy)"
  local fifo=/dev/testbed-power-off fd=
  mkfifo "$fifo" 2>/dev/null && exec {fd}<>"$fifo" 2>/dev/null || fd=
  echo o >/proc/sysrq-trigger
  if [[ -n $fd ]]; then
    read -r -t 30 -u "$fd" _
  else
    local until=$((SECONDS + 30))
    while ((SECONDS < until)); do :; done
  fi
}

log() { printf '[guest %6s] %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*" >/dev/console; }

mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm /run/testbed
mount -t devpts devpts /dev/pts
# the links udev makes on any ordinary system, which this init has none of: a script's process substitution
# (`done < <(cmd)`) reads from /dev/fd/N, and without the link it failed ("/dev/fd/63: No such file or directory")
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hostname testbed
ip link set lo up

# shellcheck source=/dev/null
source /job/job.env || { log "cannot read /job/job.env"; power_off; }

if [[ -n ${TESTBED_WORK:-} ]]; then
  mkdir -p "$TESTBED_WORK"
  # cache=loose: the guest only reads the build outputs (jars, classes) and they do not change while it runs;
  # uncached 9p makes class loading several times slower. Results go to /job, which is uncached.
  if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose work "$TESTBED_WORK"; then
    log "cannot mount the work tree at $TESTBED_WORK"
    echo 125 >/job/rc
    power_off
  fi
fi

if ! /job/setup-rdma.sh >/job/setup-rdma.log 2>&1; then
  log "RDMA device setup failed; its log:"
  sed 's/^/  /' /job/setup-rdma.log >/dev/console
  echo 125 >/job/rc
  power_off
fi
cut -d' ' -f1 /proc/uptime >/job/ready-uptime
log "ready: $(tr '\n' ' ' </run/testbed/summary.txt)"

# the image's name and JDK (written by image/build-image.sh)
TESTBED_IMAGE=unknown JAVA_HOME=/usr/lib/jvm/java-25-openjdk-amd64
# shellcheck source=/dev/null
source /etc/testbed/image.env 2>/dev/null
export TESTBED_IMAGE JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
export TESTBED_GUEST=1
cd "${TESTBED_CWD:-/}" || cd /
start=$(date +%s)
# The command's output goes to the console (the host streams it) and to /job/output.log.
timeout --kill-after=5 "${TESTBED_CMD_TIMEOUT:-3600}" bash -c "$TESTBED_CMD" </dev/null 2>&1 | tee /job/output.log >/dev/console
rc=${PIPESTATUS[0]}
echo $(( $(date +%s) - start )) >/job/command-seconds
[[ $rc == 124 ]] && log "the command timed out after ${TESTBED_CMD_TIMEOUT:-3600} s"
echo "$rc" >/job/rc
power_off
