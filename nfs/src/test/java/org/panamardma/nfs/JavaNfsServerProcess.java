package org.panamardma.nfs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.panamardma.nfs.rpc.RdmaRpcTransport;
import org.panamardma.nfs.server.NfsServerMain;
import org.panamardma.rpcrdma.server.RpcRdmaServer;
import org.slf4j.LoggerFactory;

/**
 * The Java NFS server ({@link NfsServerMain}) as a process of its own, as an operator runs it, for the device tests
 * in the testbed guest: started, killed (SIGKILL, mid-I/O), started again on the same export and state, its log kept
 * in a file per start.
 */
final class JavaNfsServerProcess extends JavaNfsServerSite {
    /** A line the server logs at WARN or ERROR (its format: time, level, logger). */
    static final Pattern PROBLEM = Pattern.compile("^\\S+ (WARN|ERROR) ");

    private final List<Path> logs = new ArrayList<>();
    private Process process;

    JavaNfsServerProcess(String name, String address, int tcpPort, int mountPort, int rdmaPort)
            throws IOException, InterruptedException {
        super(name, address, tcpPort, mountPort, rdmaPort);
    }

    /**
     * The class path of the server: the jars (or class folders) of nfs, rpcrdma, oncrpc and verbs-ffm, SLF4J's API
     * and the binding this JVM uses (the JDK 1.4 one of the tests, as in nfs-server.jar: NfsServerMain formats its
     * lines). Deliberately not test-fixtures' ChildJvm, which hands a child all the tests have: the server gets what
     * nfs-server.jar holds.
     */
    private static String classPath() {
        List<String> parts = new ArrayList<>();
        for (Class<?> c : List.of(
                NfsServerMain.class,
                RpcRdmaServer.class,
                org.panamardma.oncrpc.RpcService.class,
                org.panamardma.verbs.Device.class,
                LoggerFactory.class,
                LoggerFactory.getILoggerFactory().getClass())) {
            try {
                String p = Path.of(c.getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI())
                        .toString();
                if (!parts.contains(p)) {
                    parts.add(p);
                }
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return String.join(":", parts);
    }

    /**
     * Starts the server and waits until it says it is ready: up to two minutes, and up to five while its JVM is still
     * working its way up (its CPU time grows). The guest is emulated; on an overloaded host (a CI rehearsal with four
     * guests on two cores) a restart printed nothing in its first 120 s, a start, not a verdict on the server.
     */
    @Override
    public void start() throws IOException, InterruptedException {
        Path log = Path.of("/tmp/java-nfs-" + name + "-" + (logs.size() + 1) + ".log");
        logs.add(log);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx512m",
                "-cp",
                // another build of the server (its nfs-server.jar) in place of this one's classes: how a device
                // test shows that it fails on the old code
                System.getProperty("panama.nfs.serverClassPath", classPath()),
                NfsServerMain.class.getName(),
                "--export",
                export.toString(),
                "--state",
                state.toString(),
                "--no-rpcbind",
                "--tcp",
                address + ":" + tcpPort,
                "--mount",
                address + ":" + mountPort,
                "--rdma",
                address + ":" + rdmaPort);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long started = System.nanoTime();
        long deadline = started + TimeUnit.SECONDS.toNanos(120);
        long patience = started + TimeUnit.SECONDS.toNanos(300);
        Duration cpu = Duration.ZERO;
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains("nfs-server: ready")) {
                answersOverRdma();
                return;
            }
            if (!process.isAlive()) {
                throw new IOException(
                        "the Java NFS server exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            Thread.sleep(200);
            if (System.nanoTime() >= deadline && deadline < patience) {
                Duration now = process.info().totalCpuDuration().orElse(Duration.ZERO);
                if (now.compareTo(cpu.plusSeconds(1)) > 0) {
                    // still starting: another 30 s, up to the patience
                    cpu = now;
                    deadline = Math.min(patience, deadline + TimeUnit.SECONDS.toNanos(30));
                }
            }
        }
        throw new IOException("the Java NFS server was not ready in "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s (CPU time "
                + process.info().totalCpuDuration().map(Duration::toSeconds).orElse(-1L) + " s):\n"
                + Files.readString(log));
    }

    /**
     * One NFS NULL call over RPC-over-RDMA from this JVM before the kernel client mounts: "ready" then means the
     * server answers over RDMA, not only that it listens. Why: a freshly started server JVM's first accept runs cold
     * code (under the testbed's emulation, on an overloaded host, over 10 s), and on siw a client whose MPA request
     * is not answered within 10 s gets UNREACHABLE, which the kernel's RPC-over-RDMA client turns into ENETUNREACH
     * and mount.nfs into a permanent "Network is unreachable" (seen in CI rehearsals); this client connects again
     * instead (RdmaClient), and the server's accept path is warm for the mount.
     */
    private void answersOverRdma() throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Duration timeout = Duration.ofSeconds(120);
        try (RdmaRpcTransport transport = RdmaRpcTransport.connect(
                new InetSocketAddress(address, rdmaPort),
                org.panamardma.rpcrdma.client.RpcRdmaClientOptions.DEFAULTS.withTimeouts(timeout, timeout))) {
            new Nfs3Client(transport, Nfs3Client.authSys("panama-rdma-readiness", 0, 0), timeout).ping();
        } catch (IOException | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(
                    "the Java NFS server said it was ready but did not answer NULL over RDMA at " + address + ":"
                            + rdmaPort + ": " + e,
                    e);
        }
        System.out.printf("java-nfs %s: answers NULL over RDMA (%d ms)%n", name, (System.nanoTime() - t0) / 1_000_000);
    }

    /** {@return the server's process id (its CPU time: {@link ProcessCpu#of})} */
    long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown, connections torn down by the kernel, as in a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(60, TimeUnit.SECONDS);
    }

    /** The log of every start so far, concatenated. */
    @Override
    public String log() throws IOException {
        StringBuilder b = new StringBuilder();
        for (Path p : logs) {
            if (Files.exists(p)) {
                b.append(Files.readString(p));
            }
        }
        return b.toString();
    }

    /** WARN and ERROR lines of every start so far. */
    @Override
    public List<String> problems() throws IOException {
        return log().lines().filter(l -> PROBLEM.matcher(l).find()).toList();
    }

    /** SIGTERM, then waits for the server's last line. */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
