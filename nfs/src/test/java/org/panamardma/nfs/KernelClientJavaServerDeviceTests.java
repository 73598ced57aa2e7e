package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * The Linux kernel's NFS client (in the testbed guest) mounts the Java NFS server (on the peer device's address;
 * in this JVM, or for the kill test as a process of its own started as {@code nfs-server.jar} is) with
 * {@code vers=3,proto=rdma,port=..,mountport=..,
 * mountproto=tcp,nolock}: a tree of files of awkward sizes goes in and back out (checked by SHA-256 on the server's
 * disk and after a fresh mount), the usual directory work (ls -lR, mv, rm, mkdir, rmdir), fio with verify, and the
 * server killed mid-fio and restarted under the hard mount. Every test asserts: no verify error, no WARN or ERROR in
 * the server's log, no xprtrdma/rpcrdma trouble in the guest's kernel log, and (over RDMA) the server device's
 * resources back to what they were before the mount.
 *
 * <p>Sizes are kept for an emulated guest; {@code -Dpanama.nfs.bigFile=67108864} and {@code
 * -Dpanama.nfs.fioMiB=64} give the full sizes.
 */
@Timeout(900)
abstract class KernelClientJavaServerDeviceTests {
    /** The largest file of the tree (64 MiB for the full run). */
    static final long BIG_FILE = Long.getLong("panama.nfs.bigFile", 8L << 20);
    /** fio: MiB per job, four jobs. */
    static final int FIO_MIB = Integer.getInteger("panama.nfs.fioMiB", 8);

    static final int FIO_JOBS = 4;

    /** fio: how many times the fio test runs its workload, each on fresh files (a soak: {@code 20} and more). */
    static final int FIO_ROUNDS = Integer.getInteger("panama.nfs.fioRounds", 1);

    /** Where fio dumps a block that failed its verify (received and expected), outside the shared suite folder. */
    static final Path FIO_DUMPS = Path.of("/tmp/panama-fio-dumps");

    private static final Pattern KERNEL_TROUBLE = Pattern.compile(
            "(?i)((nfs|svcrdma|rpcrdma|xprtrdma|sunrpc|rpc).*(error|fail|warn|refus|drop|timed out))|call trace|bug:"
                    + "|oops");

    /** TCP port of NFS; MOUNT is one below, RPC-over-RDMA one above. */
    abstract int portBase();

    static String run(String... command) throws IOException, InterruptedException {
        return KnfsdServer.run(List.of(command), 600);
    }

    static String sh(String script) throws IOException, InterruptedException {
        return KnfsdServer.run(List.of("bash", "-c", script), 900);
    }

    /** The server as a process of its own ({@code java -cp ... NfsServerMain}), to be killed. */
    JavaNfsServerProcess serverProcess(RdmaTestDevice device) throws IOException, InterruptedException {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
        return new JavaNfsServerProcess(
                device.name(), peer.ipv4().orElseThrow().getHostAddress(), portBase(), portBase() - 1, portBase() + 1);
    }

    /** The server in this JVM: the same code, without a JVM start in the emulated guest. */
    JavaNfsServerInProcess server(RdmaTestDevice device) throws IOException, InterruptedException {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
        return new JavaNfsServerInProcess(
                device.name(), peer.ipv4().orElseThrow().getHostAddress(), portBase(), portBase() - 1, portBase() + 1);
    }

    static String options(NfsServerUnderTest s, String proto) {
        int port = proto.equals("rdma") ? s.rdmaPort() : s.tcpPort();
        return "vers=3,proto=" + proto + ",port=" + port + ",mountport=" + s.mountPort() + ",mountproto=tcp,nolock";
    }

    static Path mount(NfsServerUnderTest s, String proto) throws IOException, InterruptedException {
        Path mnt = Files.createDirectories(Path.of("/mnt/java-nfs-" + s.name()));
        run("modprobe", "nfsv3");
        if (proto.equals("rdma")) {
            run("modprobe", "rpcrdma");
        }
        run("mount", "-t", "nfs", "-o", options(s, proto), s.address() + ":" + s.export(), mnt.toString());
        String line = Files.readString(Path.of("/proc/mounts"))
                .lines()
                .filter(l -> l.contains(" " + mnt + " "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(mnt + " is not mounted"));
        System.out.println(s.name() + ": " + line);
        assertTrue(line.contains("proto=" + proto) && line.contains("vers=3"), line);
        return mnt;
    }

    static void umount(Path mnt) throws IOException, InterruptedException {
        run("umount", mnt.toString());
    }

    /** The device's resource counts ({@code rdma resource show}): pd, cq, qp, cm_id, mr, ctx. */
    static Map<String, Integer> resources(String device) throws IOException, InterruptedException {
        String out = run("rdma", "resource", "show");
        Map<String, Integer> counts = new TreeMap<>();
        for (String line : out.lines().toList()) {
            if (line.contains(" " + device + ":")) {
                Matcher m = Pattern.compile("(\\w+) (\\d+)").matcher(line.substring(line.indexOf(device + ":")));
                while (m.find()) {
                    counts.put(m.group(1), Integer.parseInt(m.group(2)));
                }
            }
        }
        return counts;
    }

    /** Waits (up to a minute: disconnects finish asynchronously) for the device's counts to be {@code baseline}. */
    static void awaitResources(String device, Map<String, Integer> baseline) throws Exception {
        Map<String, Integer> now = resources(device);
        for (int i = 0; i < 120 && !now.equals(baseline); i++) {
            Thread.sleep(500);
            now = resources(device);
        }
        assertEquals(baseline, now, device + "'s resources after the unmount");
    }

    static List<String> kernelTrouble(int from, boolean afterKill) throws IOException, InterruptedException {
        List<String> log = KnfsdServer.kernelLog();
        return log.subList(Math.min(from, log.size()), log.size()).stream()
                .filter(l -> KERNEL_TROUBLE.matcher(l).find())
                // a server killed on purpose: the client says so, and that its reconnects were refused meanwhile
                .filter(l -> !afterKill || !l.matches("(?i).*(not responding|refused|rejected|closed).*"))
                .toList();
    }

    static String sha256(Path file) throws Exception {
        return hashes(file).values().iterator().next();
    }

    /**
     * SHA-256 of every regular file under {@code root} (or of {@code root} itself, a file), by relative path, from
     * {@code sha256sum} (native code: in an emulated guest much faster than a JVM without its second compiler).
     */
    static Map<String, String> hashes(Path root) throws Exception {
        Map<String, String> h = new TreeMap<>();
        String out = Files.isDirectory(root)
                ? sh("cd " + root + " && find . -type f -print0 | xargs -0 -r sha256sum")
                : sh("sha256sum " + root);
        for (String line : out.lines().toList()) {
            int space = line.indexOf("  ");
            String name = line.substring(space + 2);
            h.put(name.startsWith("./") ? name.substring(2) : name, line.substring(0, space));
        }
        return h;
    }

    /**
     * A tree of files from 0 bytes to {@link #BIG_FILE}, most of them not multiples of 4 KiB, in nested folders, of
     * random bytes ({@code /dev/urandom}).
     */
    static Map<String, Long> makeTree(Path root) throws Exception {
        Map<String, Long> sizes = new LinkedHashMap<>();
        long[] s = {0, 1, 511, 4095, 4096, 4097, 65_535, 65_536 + 7, 1 << 20, (1 << 20) + 4097, (5 << 20) + 3, BIG_FILE
        };
        for (int i = 0; i < s.length; i++) {
            sizes.put((i % 3 == 0 ? "" : i % 3 == 1 ? "a/" : "a/b/c/") + "f" + i + "-" + s[i], s[i]);
        }
        for (int i = 0; i < 40; i++) {
            sizes.put("many/small-" + i, (long) i * 37);
        }
        StringBuilder script = new StringBuilder("set -e\n");
        for (var e : sizes.entrySet()) {
            Path p = root.resolve(e.getKey());
            script.append("mkdir -p ")
                    .append(p.getParent())
                    .append(" && head -c ")
                    .append(e.getValue())
                    .append(" /dev/urandom >")
                    .append(p)
                    .append('\n');
        }
        script.append("mkdir -p ").append(root.resolve("empty-dir")).append('\n');
        sh(script.toString());
        return sizes;
    }

    /** In, out, and the directory work, over {@code proto}; then the log, kernel and resource checks. */
    void treeInAndOut(RdmaTestDevice device, String proto) throws Exception {
        long started = System.nanoTime();
        String serverDevice = device.peer().orElseThrow().name();
        Path src = Path.of("/tmp/java-nfs-src-" + device.name());
        Path back = Path.of("/tmp/java-nfs-back-" + device.name());
        run("rm", "-rf", src.toString(), back.toString());
        Map<String, Long> sizes = makeTree(src);
        Map<String, String> expected = hashes(src);
        int kernelLogBefore = KnfsdServer.kernelLog().size();
        try (NfsServerUnderTest server = server(device)) {
            server.start();
            Map<String, Integer> baseline = resources(serverDevice);
            Path mnt = mount(server, proto);
            try {
                run("cp", "-r", src.toString(), mnt.resolve("tree").toString());
            } finally {
                umount(mnt);
            }
            assertEquals(expected, hashes(server.export().resolve("tree")), "the server's disk after the copy in");

            mnt = mount(server, proto); // a fresh mount: what comes back out comes from the server
            try {
                String listing = run("ls", "-lR", mnt.resolve("tree").toString());
                for (var e : sizes.entrySet()) {
                    String name = Path.of(e.getKey()).getFileName().toString();
                    assertTrue(
                            Pattern.compile("(?m)\\s" + e.getValue() + " .*\\s" + Pattern.quote(name) + "$")
                                    .matcher(listing)
                                    .find(),
                            name + " of " + e.getValue() + " bytes in ls -lR:\n" + listing);
                }
                run("cp", "-r", mnt.resolve("tree").toString(), back.toString());
                assertEquals(expected, hashes(back), "the tree copied back out");

                Path tree = mnt.resolve("tree");
                run(
                        "mv",
                        tree.resolve("f0-0").toString(),
                        tree.resolve("renamed-empty").toString());
                run(
                        "mv",
                        tree.resolve("a/b").toString(),
                        tree.resolve("b-moved").toString());
                run("rm", tree.resolve("many/small-3").toString());
                run("mkdir", "-p", tree.resolve("new/deeper").toString());
                run("rmdir", tree.resolve("new/deeper").toString());
                run("rm", "-r", tree.resolve("many").toString());
                Path onServer = server.export().resolve("tree");
                assertTrue(Files.exists(onServer.resolve("renamed-empty")) && !Files.exists(onServer.resolve("f0-0")));
                assertEquals(expected.get("a/b/c/f2-511"), sha256(onServer.resolve("b-moved/c/f2-511")));
                assertFalse(Files.exists(onServer.resolve("a/b")));
                assertTrue(Files.isDirectory(onServer.resolve("new")) && !Files.exists(onServer.resolve("new/deeper")));
                assertFalse(Files.exists(onServer.resolve("many")));
            } finally {
                umount(mnt);
            }
            if (proto.equals("rdma")) {
                awaitResources(serverDevice, baseline);
            }
            server.close();
            System.out.println(server.log());
            assertEquals(List.of(), server.problems(), "WARN/ERROR in the server's log");
            if (proto.equals("rdma")) {
                assertTrue(server.lastCount("WRITE_LIST") > 0, "READ data went by RDMA Write");
                assertTrue(server.lastCount("READ_CHUNKS") > 0, "WRITE data came by RDMA Read");
            }
        }
        assertEquals(List.of(), kernelTrouble(kernelLogBefore, false), "the guest's kernel log");
        System.out.printf(
                "%s over %s: tree of %d MiB in and out, %d s%n",
                device.name(),
                proto,
                sizes.values().stream().mapToLong(Long::longValue).sum() >> 20,
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    }

    @Test
    void kernelClientCopiesATreeInAndOutOverRdma(RdmaTestDevice device) throws Exception {
        treeInAndOut(device, "rdma");
    }

    /** fio must be installed in the guest: the test fails, not skips, without it. */
    static String fio() throws IOException, InterruptedException {
        try {
            return run("bash", "-c", "command -v fio").trim();
        } catch (IOException e) {
            throw new AssertionError(
                    "fio is not installed in the testbed guest (Debian package fio): " + e.getMessage());
        }
    }

    static List<String> fioCommand(String fio, Path dir) {
        return List.of(
                fio,
                "--name=mixed",
                "--directory=" + dir,
                "--rw=randrw",
                "--rwmixread=50",
                "--bssplit=4k/40:64k/30:256k/20:1m/10",
                "--size=" + FIO_MIB + "m",
                "--numjobs=" + FIO_JOBS,
                "--ioengine=psync",
                "--direct=1",
                "--verify=crc32c",
                "--do_verify=1",
                "--verify_fatal=1",
                // no local-*-verify.state files in the working directory (the suite's folder, shared with the host)
                "--verify_state_save=0",
                // a failed verify leaves the block as received and as expected there (verifyFailure explains it)
                "--verify_dump=1",
                "--aux-path=" + FIO_DUMPS,
                "--group_reporting");
    }

    static void assertFioPassed(int exit, String output) {
        System.out.println(output);
        assertEquals(0, exit, "fio's exit status");
        assertFalse(output.matches("(?s).*(verify: bad|bad magic|crc32c: verify failed|verify failed).*"), output);
        assertTrue(output.contains("Run status group"), output);
    }

    @Test
    void fioWithVerifyOverRdma(RdmaTestDevice device) throws Exception {
        String fio = fio();
        String serverDevice = device.peer().orElseThrow().name();
        int kernelLogBefore = KnfsdServer.kernelLog().size();
        try (NfsServerUnderTest server = server(device)) {
            server.start();
            Map<String, Integer> baseline = resources(serverDevice);
            Path mnt = mount(server, "rdma");
            try {
                for (int round = 0; round < FIO_ROUNDS; round++) {
                    Path dir = Files.createDirectories(mnt.resolve("fio-" + round));
                    Files.createDirectories(FIO_DUMPS);
                    Process p = new ProcessBuilder(fioCommand(fio, dir))
                            .redirectErrorStream(true)
                            .start();
                    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    int exit = p.waitFor();
                    if (exit != 0) {
                        System.out.println(FioVerifyFailure.explain(output, FIO_DUMPS, mnt, server.export()));
                    }
                    assertFioPassed(exit, output);
                    run("rm", "-rf", dir.toString());
                }
            } finally {
                umount(mnt);
            }
            awaitResources(serverDevice, baseline);
            server.close();
            assertEquals(List.of(), server.problems(), "WARN/ERROR in the server's log");
        }
        assertEquals(List.of(), kernelTrouble(kernelLogBefore, false), "the guest's kernel log");
    }

    /**
     * The workload the server is killed under: fio (the test), or with {@code -Dpanama.nfs.killWorkload=dd}, where
     * fio is not installed, dd with direct I/O writing then reading back 32 MiB, compared by cmp.
     */
    static final String KILL_WORKLOAD = System.getProperty("panama.nfs.killWorkload", "fio");

    @Test
    void serverKilledMidFioAndRestartedTheHardMountRecovers(RdmaTestDevice device) throws Exception {
        boolean useFio = !KILL_WORKLOAD.equals("dd");
        String fio = useFio ? fio() : null;
        int kernelLogBefore = KnfsdServer.kernelLog().size();
        try (JavaNfsServerProcess server = serverProcess(device)) {
            server.start();
            Path mnt = mount(server, "rdma");
            try {
                Path dir = Files.createDirectories(mnt.resolve("fio-kill"));
                List<String> command = useFio
                        ? fioCommand(fio, dir)
                        : List.of(
                                "bash",
                                "-c",
                                "set -e; head -c 32M /dev/urandom >/tmp/dd-src; dd if=/tmp/dd-src of=" + dir
                                        + "/dd bs=1M"
                                        + " oflag=direct; dd if=" + dir + "/dd of=/tmp/dd-back bs=1M iflag=direct;"
                                        + " cmp /tmp/dd-src /tmp/dd-back; echo 'Run status group: dd and cmp passed'");
                Process p =
                        new ProcessBuilder(command).redirectErrorStream(true).start();
                StringBuilder output = new StringBuilder();
                Thread reader = Thread.ofVirtual().start(() -> {
                    try {
                        output.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        output.append(e);
                    }
                });
                // fio first lays out its files at full size, then does the mixed I/O: kill in the middle of that
                long laidOut = useFio ? (long) FIO_JOBS * FIO_MIB << 20 : 8L << 20;
                long written = 0;
                for (int i = 0; i < 1200 && written < laidOut && p.isAlive(); i++) {
                    Thread.sleep(500);
                    written = sizeOf(server.export().resolve("fio-kill"));
                }
                Thread.sleep(5000);
                assertTrue(p.isAlive(), "fio still running when the server is killed");
                server.kill();
                System.out.println(device.name() + ": server killed after " + (written >> 20) + " MiB on its disk");
                Thread.sleep(3000);
                server.start();
                assertTrue(p.waitFor(15, TimeUnit.MINUTES), "fio finished after the restart");
                reader.join();
                assertFioPassed(p.exitValue(), output.toString());
            } finally {
                umount(mnt);
            }
            server.close();
            System.out.println(server.log());
            assertEquals(List.of(), server.problems(), "WARN/ERROR in the server's logs");
        }
        assertEquals(List.of(), kernelTrouble(kernelLogBefore, true), "the guest's kernel log");
    }

    /** Bytes allocated under {@code dir} (0 if it does not exist yet). */
    static long sizeOf(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(files::add);
        }
        long total = 0;
        for (Path f : files) {
            total += Files.size(f);
        }
        return total;
    }
}
