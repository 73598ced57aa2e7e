package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The command's address syntax and its log line format (what the device tests grep for WARN and ERROR). */
class NfsServerMainTest {
    @Test
    void addressesWithAndWithoutAHost() throws Exception {
        assertEquals(
                new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 20049),
                NfsServerMain.address("10.77.0.2:20049"));
        assertEquals(
                new InetSocketAddress(InetAddress.getByName("fd77::2"), 20049),
                NfsServerMain.address("[fd77::2]:20049"));
        assertEquals(new InetSocketAddress(2049), NfsServerMain.address(":2049"));
        assertEquals(new InetSocketAddress(2049), NfsServerMain.address("2049"));
        assertThrows(IllegalArgumentException.class, () -> NfsServerMain.address("10.77.0.2:nfs"));
    }

    @Test
    void oneLinePerRecordWithTheLevelNamedAsTheTestsGrepForIt() {
        NfsServerMain.LineFormat f = new NfsServerMain.LineFormat();
        LogRecord warn = new LogRecord(Level.WARNING, "careful");
        warn.setLoggerName("org.panamardma.rpcrdma.server.ServerConnection");
        String line = f.format(warn);
        assertTrue(JavaNfsServerProcessPattern.PROBLEM.matcher(line).find(), line);
        assertTrue(line.endsWith(" WARN  ServerConnection: careful\n"), line);
        LogRecord severe = new LogRecord(Level.SEVERE, "broken");
        assertTrue(JavaNfsServerProcessPattern.PROBLEM.matcher(f.format(severe)).find());
        LogRecord info = new LogRecord(Level.INFO, "MNT /srv by uid 0");
        assertTrue(!JavaNfsServerProcessPattern.PROBLEM.matcher(f.format(info)).find());
    }

    /**
     * The path nfs-server.jar's lines take: a library logs through SLF4J, the JDK 1.4 binding (the jar's, and the
     * tests') hands the record to java.util.logging, and {@link NfsServerMain.LineFormat} writes the line the device
     * tests and scripts grep. A WARN stays a WARN, an ERROR an ERROR, with the parameters filled in.
     */
    @Test
    void whatTheLibrariesLogThroughSlf4jComesOutInTheLineFormat() {
        List<String> lines = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(new NfsServerMain.LineFormat().format(r));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        String name = "org.panamardma.rpcrdma.server.ServerConnection";
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(name);
        jul.addHandler(handler);
        jul.setUseParentHandlers(false); // the console need not show the deliberate ERROR's stack trace
        try {
            org.slf4j.Logger log = LoggerFactory.getLogger(name);
            log.warn("{}: careful", "conn-1");
            log.error("broken", new IllegalStateException("why"));
            log.info("MNT /srv by uid 0");
        } finally {
            jul.removeHandler(handler);
            jul.setUseParentHandlers(true);
        }
        assertEquals(3, lines.size(), lines.toString());
        assertTrue(lines.get(0).endsWith(" WARN  ServerConnection: conn-1: careful\n"), lines.get(0));
        assertTrue(JavaNfsServerProcessPattern.PROBLEM.matcher(lines.get(0)).find(), lines.get(0));
        assertTrue(
                lines.get(1).contains(" ERROR ServerConnection: broken\n")
                        && lines.get(1).contains("IllegalStateException: why"),
                lines.get(1));
        assertTrue(JavaNfsServerProcessPattern.PROBLEM.matcher(lines.get(1)).find(), lines.get(1));
        assertFalse(JavaNfsServerProcessPattern.PROBLEM.matcher(lines.get(2)).find(), lines.get(2));
    }

    /** The pattern of the device tests' JavaNfsServerProcess (another package), repeated here to pin it. */
    static final class JavaNfsServerProcessPattern {
        static final java.util.regex.Pattern PROBLEM = java.util.regex.Pattern.compile("^\\S+ (WARN|ERROR) ");
    }

    /** The command's export options reach the server: a client list with options of its own, and the global ones. */
    @Test
    void exportOptionsFromTheCommandLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path export = java.nio.file.Files.createDirectories(dir.resolve("export"));
        List<String[]> options = List.of(
                new String[] {"--allow", "127.0.0.1(rw,no_root_squash,no_all_squash)"},
                new String[] {"--allow", "10.0.0.0/8"},
                new String[] {"--insecure"},
                new String[] {"--all-squash"},
                new String[] {"--anon", "7:8"},
                new String[] {"--threads", "2"},
                new String[] {"--no-rpcbind"},
                new String[] {"--state", dir.resolve("state").toString()},
                new String[] {"--tcp", "127.0.0.1:0"},
                new String[] {"--mount", "127.0.0.1:0"});
        try (NfsServer server = NfsServerMain.configure(export, options).start();
                org.panamardma.nfs.rpc.TcpRpcTransport m =
                        org.panamardma.nfs.rpc.TcpRpcTransport.connect(server.mountAddress(), 1 << 16)) {
            // from an unprivileged port (insecure), as root not squashed (127.0.0.1's own options)
            var root = new org.panamardma.nfs.MountClient(
                            m, org.panamardma.nfs.Nfs3Client.authSys("t", 0, 0), java.time.Duration.ofSeconds(30))
                    .mount(server.exportPath())
                    .root();
            try (org.panamardma.nfs.rpc.TcpRpcTransport t =
                    org.panamardma.nfs.rpc.TcpRpcTransport.connect(server.tcpAddress(), 1 << 20)) {
                new org.panamardma.nfs.Nfs3Client(
                                t, org.panamardma.nfs.Nfs3Client.authSys("t", 0, 0), java.time.Duration.ofSeconds(30))
                        .create(root, "f", 0644);
            }
            assertEquals(0, java.nio.file.Files.getAttribute(export.resolve("f"), "unix:uid"));
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> NfsServerMain.configure(export, List.<String[]>of(new String[] {"--anon", "7"})));
        assertThrows(
                IllegalArgumentException.class,
                () -> NfsServerMain.configure(export, List.<String[]>of(new String[] {"--threads", "many"})));
    }
}
