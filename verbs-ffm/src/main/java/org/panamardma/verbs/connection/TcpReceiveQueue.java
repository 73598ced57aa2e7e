package org.panamardma.verbs.connection;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * How many bytes a TCP connection of this host has received that nobody has read yet: the {@code rx_queue} column of
 * {@code /proc/net/tcp} and {@code /proc/net/tcp6} (the kernel's {@code get_tcp4_sock}/{@code get_tcp6_sock}:
 * {@code rcv_nxt - copied_seq}). It sees the kernel's own sockets too, such as the one Soft-iWARP carries a
 * connection on, which is why {@link ServerStreamStart} reads it.
 */
final class TcpReceiveQueue {
    static final Path PROC_TCP = Path.of("/proc/net/tcp");
    static final Path PROC_TCP6 = Path.of("/proc/net/tcp6");
    /** {@code TCP_ESTABLISHED} in the {@code st} column. */
    private static final int ESTABLISHED = 1;

    private TcpReceiveQueue() {}

    /**
     * The unread bytes of the established connection from {@code local} to {@code remote}, or empty if this host's
     * tables (in this process's network namespace) have no such connection or cannot be read.
     */
    static OptionalLong unreadBytes(InetSocketAddress local, InetSocketAddress remote) {
        return unreadBytes(local, remote, PROC_TCP, PROC_TCP6);
    }

    static OptionalLong unreadBytes(InetSocketAddress local, InetSocketAddress remote, Path tcp, Path tcp6) {
        try {
            // an IPv4 connection is in /proc/net/tcp, or in tcp6 with IPv4-mapped addresses if its socket is an
            // IPv6 one (a JVM's, say); the kernel's own sockets for IPv4 (siw's) are IPv4 sockets
            OptionalLong found = OptionalLong.empty();
            if (local.getAddress().getAddress().length == 4) {
                found = find(tcp, entry(local), entry(remote));
            }
            return found.isPresent() ? found : find(tcp6, entry(mapped(local)), entry(mapped(remote)));
        } catch (IOException | RuntimeException e) {
            // not Linux, or the table changed under us: nothing known
            return OptionalLong.empty();
        }
    }

    private static OptionalLong find(Path table, String local, String remote) throws IOException {
        if (!Files.isReadable(table)) {
            return OptionalLong.empty();
        }
        // read line by line and stop at the connection: the kernel makes the table as it is read
        try (BufferedReader in = Files.newBufferedReader(table)) {
            in.readLine(); // the header
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                OptionalLong found = unread(line, local, remote);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return OptionalLong.empty();
    }

    /** An IPv4 address as the IPv4-mapped IPv6 address ::ffff:a.b.c.d (RFC 4291 section 2.5.5.2); others as they are. */
    static InetSocketAddress mapped(InetSocketAddress address) throws IOException {
        byte[] b = address.getAddress().getAddress();
        if (b.length != 4) {
            return address;
        }
        byte[] v6 = new byte[16];
        v6[10] = (byte) 0xff;
        v6[11] = (byte) 0xff;
        System.arraycopy(b, 0, v6, 12, 4);
        // getByAddress would hand an IPv4-mapped address back as IPv4: build the IPv6 one explicitly
        return new InetSocketAddress(java.net.Inet6Address.getByAddress(null, v6, -1), address.getPort());
    }

    /** The rx_queue of one table line if it is the established connection wanted. */
    private static OptionalLong unread(String line, String local, String remote) {
        // "  sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ..."
        String[] f = line.trim().split("\\s+");
        if (f.length < 5
                || !f[1].equalsIgnoreCase(local)
                || !f[2].equalsIgnoreCase(remote)
                || Integer.parseInt(f[3], 16) != ESTABLISHED) {
            return OptionalLong.empty();
        }
        String queues = f[4];
        return OptionalLong.of(Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16));
    }

    /**
     * An address as the tables print it: the IP address as 32-bit words in the host's byte order, each as 8 hex
     * digits, then ":" and the port as 4 hex digits.
     */
    static String entry(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        byte[] b = ip.getAddress();
        boolean littleEndian = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        StringBuilder s = new StringBuilder();
        for (int word = 0; word < b.length; word += 4) {
            for (int i = 0; i < 4; i++) {
                s.append(String.format("%02X", b[word + (littleEndian ? 3 - i : i)] & 0xff));
            }
        }
        return s.append(String.format(":%04X", address.getPort())).toString();
    }
}
