package org.panamardma.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.TestAccess;

/**
 * A peer in its own process, for tests that kill it: connects to {@code host port}, sends "hello from pid N", prints
 * "connected" and then waits to be killed (it never closes anything: the kernel cleans up after the kill).
 */
public final class ConnectingPeer {
    private ConnectingPeer() {}

    /** The command line that runs this class in a new JVM with the current class path. */
    static List<String> command(InetSocketAddress server) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xshare:auto",
                "-cp",
                classPath(),
                ConnectingPeer.class.getName(),
                server.getAddress().getHostAddress(),
                Integer.toString(server.getPort())));
        return cmd;
    }

    /**
     * Where this class, verbs-ffm's and the SLF4J API verbs-ffm logs through come from (the console launcher loads
     * test jars through its own class loader, and on the module path {@code java.class.path} is empty), then the
     * JVM's own class path. No SLF4J binding: the peer logs nothing (SLF4J says so once on stderr). Deliberately not
     * test-fixtures' ChildJvm, which hands a child all the tests have, a binding included.
     */
    private static String classPath() {
        java.util.LinkedHashSet<String> entries = new java.util.LinkedHashSet<>();
        for (Class<?> c : new Class<?>[] {ConnectingPeer.class, RdmaClient.class, org.slf4j.LoggerFactory.class}) {
            try {
                entries.add(java.nio.file.Path.of(c.getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI())
                        .toString());
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        entries.add(System.getProperty("java.class.path"));
        return String.join(java.io.File.pathSeparator, entries);
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        RdmaConnection c = RdmaClient.connect(server, ConnectionOptions.DEFAULTS.withTimeout(Duration.ofSeconds(90)));
        byte[] hello = ("hello from pid " + ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII);
        MemoryRegion mr = c.protectionDomain().allocate(hello.length, TestAccess.ALL_REMOTE);
        MemorySegment.copy(hello, 0, mr.segment(), ValueLayout.JAVA_BYTE, 0, hello.length);
        c.send(mr, 0, hello.length).get(60, TimeUnit.SECONDS);
        System.out.println("connected");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
