package org.panamardma.nfs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;

/**
 * The guest's kernel NFS server, started for the tests by {@code start-nfs-server.sh} (a test resource, run as root
 * inside the testbed VM) and its kernel log, read through {@code dmesg}.
 */
final class KnfsdServer {
    /** The export's contents, as the script makes them. */
    static final String PATTERN_FILE = "pattern.bin";

    static final int PATTERN_SIZE = 1 << 20;
    static final String SMALL_FILE = "hello.txt";
    static final String SMALL_CONTENT = "hello from knfsd\n";
    static final String BIG_DIRECTORY = "dir1000";
    static final int BIG_DIRECTORY_ENTRIES = 1000;
    static final String WRITE_TARGET = "write-target";

    private static KnfsdServer started;

    final Path export;
    final String rdmaListener;
    final int kernelLogLinesBefore;

    private KnfsdServer(Path export, String rdmaListener, int kernelLogLinesBefore) {
        this.export = export;
        this.rdmaListener = rdmaListener;
        this.kernelLogLinesBefore = kernelLogLinesBefore;
    }

    /** @return byte {@code i} of {@link #PATTERN_FILE}: i mod 251 */
    static byte patternByte(long i) {
        return (byte) (i % 251);
    }

    /**
     * Starts knfsd once per JVM until {@link #stop}: the script starts what is not running and returns only when
     * knfsd verifiably serves (mountd registered for TCP and answering, NFS v3 answering a NULL call, svcrdma
     * listening on 20049), else fails naming the part that is missing, which this method's exception carries.
     */
    static synchronized KnfsdServer start() throws IOException, InterruptedException {
        if (started != null) {
            return started;
        }
        int before = kernelLog().size();
        String output = run(List.of("bash", script().toString()), 120);
        System.out.print(output);
        Map<String, String> values = new HashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (line.startsWith("NFS_") && eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        if (!"1".equals(values.get("NFS_READY"))) {
            throw new IOException("knfsd did not start:\n" + output);
        }
        started = new KnfsdServer(Path.of(values.get("NFS_EXPORT")), values.get("NFS_RDMA"), before);
        return started;
    }

    /**
     * Stops knfsd and mountd (the script's {@code stop}, which returns only once they are gone and mountd is no longer
     * registered), so that later device tests in the same VM find the ports free; a later {@link #start} starts
     * them again.
     */
    /**
     * mountd's TCP port for MOUNT v3, as the port mapper at {@code host} tells it (0 when mountd is not registered).
     */
    static int mountdPort(String host, Duration timeout) throws IOException, InterruptedException {
        try (TcpRpcTransport pmap = TcpRpcTransport.connect(host, Portmap.PORT)) {
            return new PortmapClient(pmap, timeout).getPort(Mount3.PROGRAM, Mount3.VERSION, Portmap.IPPROTO_TCP);
        }
    }

    /** The export's root handle: MNT of {@link #export} over {@code mount} (a connection to mountd). */
    FileHandle3 mountRoot(RpcTransport mount, OpaqueAuth credential, Duration timeout)
            throws IOException, InterruptedException {
        return new MountClient(mount, credential, timeout)
                .mount(export.toString())
                .root();
    }

    static synchronized void stop() throws IOException, InterruptedException {
        if (started == null) {
            return;
        }
        started = null;
        System.out.print(run(List.of("bash", script().toString(), "stop"), 120));
    }

    private static Path script() throws IOException {
        Path script = Files.createTempFile("start-nfs-server", ".sh");
        try (InputStream in = KnfsdServer.class.getResourceAsStream("start-nfs-server.sh")) {
            if (in == null) {
                throw new IOException("start-nfs-server.sh is not on the class path");
            }
            Files.write(script, in.readAllBytes());
        }
        return script;
    }

    /**
     * Runs a command, returning stdout and stderr; fails on a non-zero exit or after {@code seconds}. The output
     * goes to a file while the command runs, so that the deadline holds even for a command that keeps its output
     * open (a daemon it starts inherits it).
     */
    static String run(List<String> command, long seconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("knfsd-run", ".log");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            boolean finished;
            try {
                finished = p.waitFor(seconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                // the test's own time limit: a start left running would race the next one
                p.destroyForcibly();
                throw e;
            }
            if (!finished) {
                p.destroyForcibly();
                throw new IOException(command + " did not finish in " + seconds + " s; its output so far:\n"
                        + Files.readString(out, StandardCharsets.UTF_8));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(command + " exited with " + p.exitValue() + ":\n" + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** @return the kernel log, one entry per line */
    static List<String> kernelLog() throws IOException, InterruptedException {
        return run(List.of("dmesg"), 30).lines().toList();
    }
}
