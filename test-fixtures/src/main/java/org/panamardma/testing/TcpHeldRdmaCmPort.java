package org.panamardma.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * Makes the next local port rdma_cm picks for a client be one that a TCP socket of this host holds, as happens by
 * chance on a busy host: on iWARP, rdma_cm's port space is not the TCP stack's, and Soft-iWARP binds its kernel TCP
 * socket to the port rdma_cm chose (drivers/infiniband/sw/siw/siw_cm.c, {@code kernel_bindconnect}), so
 * {@code rdma_connect} fails with EADDRINUSE (CI, stop of 2026-11-27: a gRPC connect on siw).
 *
 * <p>How: the host's ephemeral port range ({@code net.ipv4.ip_local_port_range}, which rdma_cm also draws from) is
 * narrowed to two ports, {@link #port()} and the one after it; a listening TCP socket holds the first. rdma_cm's
 * allocator (drivers/infiniband/core/cma.c, {@code cma_alloc_any_port}) starts at a random port of the range but
 * skips the port it handed out last, so with two ports it alternates. The constructor binds ids (through the caller's
 * {@code bindOne}) until the last one handed out was the second port: the next id gets the held one, and the one after
 * it the free one. Close it promptly: while it is open, nothing else on the host gets an ephemeral port but those two.
 * Root only (it writes /proc/sys); a test on the testbed guest.
 */
public final class TcpHeldRdmaCmPort implements AutoCloseable {
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private final String savedRange;
    private final ServerSocket holder;

    /**
     * Holds a port with TCP, narrows the range and sets rdma_cm's allocator as the class says.
     *
     * @param bindOne binds one new rdma_cm id to any port (an address resolution does), closes it and returns the port
     *     it got, throwing an unchecked exception if it cannot
     * @throws IOException if the range cannot be read or written (not root?) or no port can be held
     * @throws IllegalStateException if rdma_cm does not hand out the ports as expected (then nothing is left changed)
     */
    public TcpHeldRdmaCmPort(IntSupplier bindOne) throws IOException {
        savedRange = readRange();
        String[] bounds = savedRange.split("\\s+");
        if (bounds.length != 2) {
            throw new IOException(RANGE + " reads \"" + savedRange + "\", not two ports");
        }
        int high = Integer.parseInt(bounds[1]);
        ServerSocket held = null;
        for (int tries = 0; held == null && tries < 20; tries++) {
            ServerSocket candidate = new ServerSocket(0); // an ephemeral port, listening on every address
            int port = candidate.getLocalPort();
            if (port < high && free(port + 1)) {
                held = candidate;
            } else {
                candidate.close();
            }
        }
        if (held == null) {
            throw new IOException("found no ephemeral port whose next one is free, in " + savedRange);
        }
        holder = held;
        int port = held.getLocalPort();
        try {
            write(port + "\t" + (port + 1));
            int first = bindOne.getAsInt();
            int last = first == port + 1 ? first : bindOne.getAsInt();
            if (!(first == port || first == port + 1) || last != port + 1) {
                throw new IllegalStateException("rdma_cm handed out ports " + first + " and " + last + " in the range "
                        + port + "-" + (port + 1) + "; expected it to alternate");
            }
        } catch (IOException | RuntimeException | Error e) {
            try {
                close();
            } catch (IOException | RuntimeException restoring) {
                e.addSuppressed(restoring);
            }
            throw e;
        }
    }

    /** {@return the port a TCP socket holds and the next rdma_cm id will be given} */
    public int port() {
        return holder.getLocalPort();
    }

    /** Restores the ephemeral port range and closes the TCP socket. */
    @Override
    public void close() throws IOException {
        try {
            write(savedRange);
        } finally {
            holder.close();
        }
    }

    private static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /** Not Files.readString: on JDK 25 it returns the first byte of this procfs file (whose size reads as 0). */
    private static String readRange() throws IOException {
        try (InputStream in = Files.newInputStream(RANGE)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
    }

    private static void write(String range) throws IOException {
        Files.writeString(RANGE, range + "\n", StandardCharsets.US_ASCII);
    }
}
