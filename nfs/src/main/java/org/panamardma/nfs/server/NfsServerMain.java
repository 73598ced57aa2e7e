package org.panamardma.nfs.server;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The command {@code java -jar nfs/target/nfs-server.jar}: serves one directory over NFSv3, on TCP and
 * RPC-over-RDMA, with MOUNT on TCP. Logs one line per event to standard error: the export, each MNT and UMNT, each
 * client connection and its end, the statistics at each UMNT and at exit. Stops on SIGTERM or SIGINT.
 *
 * <p>The libraries log through SLF4J; nfs-server.jar binds it to java.util.logging (slf4j-jdk14), which this class
 * configures with its one-line format ({@link LineFormat}: the WARN and ERROR lines the device tests and scripts
 * grep). Run with another SLF4J binding on the class path, the server logs through that one instead.
 */
public final class NfsServerMain {
    private NfsServerMain() {}

    private static final String USAGE = """
            usage: java -jar nfs-server.jar --export DIR [options]
              --export DIR          the directory to export (required)
              --tcp ADDR:PORT       NFS over TCP (default 0.0.0.0:2049; "none" for no TCP)
              --rdma ADDR:PORT      NFS over RPC-over-RDMA, an address of an RDMA device (repeatable; 20049 is the
                                    port of RFC 8267; 0.0.0.0 listens on every device)
              --mount ADDR:PORT     MOUNT v3 over TCP (default 0.0.0.0:20048)
              --state DIR           where the file handle secret is kept (default $XDG_STATE_HOME/panama-nfs or
                                    ~/.local/state/panama-nfs); never inside the export
              --allow CIDR[(OPTS)]  a client block that may mount and use the export (repeatable), with its own
                                    exports(5) options, e.g. 10.77.0.0/16 or 10.77.0.9(ro,all_squash); the most
                                    specific block holding a client's address decides. Without any, every address
                                    may (the server says so when it starts)
              the options of every client (and the base of each --allow block's own):
              --read-only           refuse every change (NFS3ERR_ROFS)                        [ro]
              --no-root-squash      let AUTH_SYS uid 0 act as root (default: squashed)        [no_root_squash]
              --all-squash          every caller acts as the anonymous ids                    [all_squash]
              --anon UID:GID        the anonymous ids (default 65534:65534)               [anonuid, anongid]
              --insecure            take calls from ports above 1023 over TCP (default: only
                                    reserved ports, as the Linux client uses; RDMA: not checked) [insecure]
              --async               reply before metadata changes are on disk                [async]
              --threads N           the threads procedures run on, each acting as its caller (default 16)
              --no-rpcbind          do not register with the local rpcbind
              --credits N           RPC-over-RDMA credits per connection (default 32)
              --debug               log at DEBUG too
            a Linux client mounts it with:
              mount -t nfs -o vers=3,proto=rdma,port=20049,mountport=20048,mountproto=tcp,nolock HOST:DIR /mnt
            """;

    /**
     * Starts the server with the options {@code USAGE} lists and blocks until SIGTERM or SIGINT closes it.
     *
     * @param args the command line options
     * @throws Exception if the server cannot start (the export or an address unusable); a usage error exits with status
     *        2
     */
    public static void main(String[] args) throws Exception {
        NfsServer.Builder builder;
        List<String[]> pending = new ArrayList<>();
        boolean debug = false;
        Path export = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--read-only", "--no-root-squash", "--no-rpcbind", "--all-squash", "--insecure", "--async" ->
                    pending.add(new String[] {a});
                case "--debug" -> debug = true;
                case "-h", "--help" -> {
                    System.out.print(USAGE);
                    return;
                }
                case "--export",
                        "--tcp",
                        "--rdma",
                        "--mount",
                        "--state",
                        "--anon",
                        "--credits",
                        "--allow",
                        "--threads" -> {
                    if (i + 1 >= args.length) {
                        fail(a + " needs a value");
                    }
                    String value = args[++i];
                    if (a.equals("--export")) {
                        export = Path.of(value);
                    } else {
                        pending.add(new String[] {a, value});
                    }
                }
                default -> fail("unknown argument " + a);
            }
        }
        if (export == null) {
            fail("--export DIR is required");
        }
        configureLogging(debug);
        try {
            builder = configure(export, pending);
        } catch (IllegalArgumentException e) {
            fail(e.getMessage());
            return;
        }
        NfsServer server;
        try {
            server = builder.start();
        } catch (IllegalArgumentException e) {
            fail(e.getMessage()); // a bad --allow entry or anonymous id
            return;
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            // written directly: java.util.logging has its own shutdown hook, which may have closed the
                            // handlers
                            LogRecord last = new LogRecord(Level.INFO, "stopped; " + server.statistics());
                            last.setLoggerName(NfsServer.class.getName());
                            System.err.print(new LineFormat().format(last));
                            System.err.flush();
                        },
                        "nfs-server-shutdown"));
        System.err.println("nfs-server: ready");
        server.awaitClose();
    }

    /**
     * The server the options ({@code --name} or {@code --name value}, in order) describe.
     *
     * @throws IllegalArgumentException for a bad value
     */
    static NfsServer.Builder configure(Path export, List<String[]> pending) throws UnknownHostException {
        NfsServer.Builder builder = NfsServer.builder(export);
        ExportOptions options = ExportOptions.DEFAULTS;
        for (String[] p : pending) {
            switch (p[0]) {
                case "--read-only" -> options = options.withReadOnly(true);
                case "--no-root-squash" -> options = options.withRootSquash(false);
                case "--all-squash" -> options = options.withAllSquash(true);
                case "--insecure" -> options = options.withSecure(false);
                case "--async" -> options = options.withSync(false);
                case "--allow" -> builder.allow(p[1]);
                case "--threads" -> builder.threads(Integer.parseInt(p[1]));
                case "--no-rpcbind" -> builder.rpcbind(false);
                case "--tcp" -> builder.tcp(p[1].equals("none") ? null : address(p[1]));
                case "--rdma" -> builder.rdma(address(p[1]));
                case "--mount" -> builder.mount(address(p[1]));
                case "--state" -> builder.state(Path.of(p[1]));
                case "--credits" -> builder.credits(Integer.parseInt(p[1]));
                case "--anon" -> {
                    String[] ids = p[1].split(":");
                    if (ids.length != 2) {
                        throw new IllegalArgumentException("--anon UID:GID");
                    }
                    options = options.withAnonymous(Integer.parseUnsignedInt(ids[0]), Integer.parseUnsignedInt(ids[1]));
                }
                default -> throw new IllegalStateException(p[0]);
            }
        }
        return builder.options(options);
    }

    /** {@code ADDR:PORT}, {@code [IPv6]:PORT}, or {@code :PORT} / {@code PORT} for every address. */
    static InetSocketAddress address(String text) throws UnknownHostException {
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not ADDR:PORT: " + text);
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(InetAddress.getByName(host), port);
    }

    private static void fail(String message) {
        System.err.println("nfs-server: " + message);
        System.err.print(USAGE);
        System.exit(2);
    }

    /** One line per record on standard error: time, level (ERROR, WARN, INFO, DEBUG), logger, message. */
    static void configureLogging(boolean debug) {
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler handler = new ConsoleHandler();
        handler.setFormatter(new LineFormat());
        handler.setLevel(debug ? Level.FINE : Level.INFO);
        root.addHandler(handler);
        root.setLevel(debug ? Level.FINE : Level.INFO);
    }

    static final class LineFormat extends Formatter {
        @Override
        public String format(LogRecord r) {
            String level;
            int v = r.getLevel().intValue();
            if (v >= Level.SEVERE.intValue()) {
                level = "ERROR";
            } else if (v >= Level.WARNING.intValue()) {
                level = "WARN ";
            } else if (v >= Level.INFO.intValue()) {
                level = "INFO ";
            } else {
                level = "DEBUG";
            }
            String logger = r.getLoggerName() == null ? "" : r.getLoggerName();
            logger = logger.substring(logger.lastIndexOf('.') + 1);
            StringBuilder b = new StringBuilder()
                    .append(Instant.ofEpochMilli(r.getMillis()))
                    .append(' ')
                    .append(level)
                    .append(' ')
                    .append(logger)
                    .append(": ")
                    .append(formatMessage(r))
                    .append('\n');
            if (r.getThrown() != null) {
                StringWriter w = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(w));
                b.append(w);
            }
            return b.toString();
        }
    }
}
