package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TcpReceiveQueue}: the unread bytes of one connection, from tables written as the kernel writes them. */
class TcpReceiveQueueTest {
    static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid" + "  timeout inode";

    static InetSocketAddress at(String ip, int port) throws IOException {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    @Test
    void addressesAreWrittenAsTheKernelWritesThem() throws Exception {
        boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        // 10.77.1.2 port 7500 (0x1D4C): /proc/net/tcp prints the address word in the host's byte order
        assertEquals((little ? "02014D0A" : "0A4D0102") + ":1D4C", TcpReceiveQueue.entry(at("10.77.1.2", 7500)));
        assertEquals(
                (little ? "000077FD" : "FD770000") + "00000000" + "00000000" + (little ? "02000000" : "00000002")
                        + ":0050",
                TcpReceiveQueue.entry(at("fd77::2", 80)));
    }

    @Test
    void findsTheEstablishedConnectionAndItsUnreadBytes(@TempDir Path dir) throws Exception {
        InetSocketAddress server = at("10.77.1.2", 7500);
        InetSocketAddress client = at("10.77.1.1", 38611);
        String s = TcpReceiveQueue.entry(server);
        String c = TcpReceiveQueue.entry(client);
        Path tcp = Files.writeString(
                dir.resolve("tcp"),
                String.join(
                        "\n",
                        HEADER,
                        // the listener (state 0A), then a connection of another client in TIME_WAIT (06), then ours
                        "   0: " + s + " 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1",
                        "   1: " + s + " " + TcpReceiveQueue.entry(at("10.77.1.1", 40000))
                                + " 06 00000000:00000007 03:00000ABC 00000000     0        0 0 3",
                        "   2: " + s + " " + c + " 01 00000000:00000084 00:00000000 00000000     0        0 0 2 x",
                        ""));
        Path none = dir.resolve("tcp6-missing");
        assertEquals(OptionalLong.of(0x84), TcpReceiveQueue.unreadBytes(server, client, tcp, none));
        // the other direction is another connection (this host's client side would be listed with its own line)
        assertEquals(OptionalLong.empty(), TcpReceiveQueue.unreadBytes(client, server, tcp, none));
        // a connection no longer established is not the one asked about
        assertEquals(OptionalLong.empty(), TcpReceiveQueue.unreadBytes(server, at("10.77.1.1", 40000), tcp, none));
        assertEquals(OptionalLong.empty(), TcpReceiveQueue.unreadBytes(server, client, none, none));
    }

    @Test
    void anIpv4ConnectionOfAnIpv6SocketIsFoundByItsMappedAddresses(@TempDir Path dir) throws Exception {
        InetSocketAddress server = at("10.77.1.2", 7500);
        InetSocketAddress client = at("10.77.1.1", 38611);
        boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        String mappedServer =
                "0000000000000000" + (little ? "FFFF0000" : "0000FFFF") + (little ? "02014D0A" : "0A4D0102") + ":1D4C";
        assertEquals(mappedServer, TcpReceiveQueue.entry(TcpReceiveQueue.mapped(server)));
        Path tcp6 = Files.writeString(
                dir.resolve("tcp6"),
                HEADER + "\n   0: " + mappedServer + " "
                        + TcpReceiveQueue.entry(TcpReceiveQueue.mapped(client))
                        + " 01 00000000:00000010 00:00000000 00000000     0        0 0 2\n");
        assertEquals(OptionalLong.of(16), TcpReceiveQueue.unreadBytes(server, client, dir.resolve("tcp"), tcp6));
    }

    @Test
    void garbledTablesTellNothing(@TempDir Path dir) throws Exception {
        InetSocketAddress server = at("10.77.1.2", 7500);
        InetSocketAddress client = at("10.77.1.1", 38611);
        Path tcp = Files.writeString(
                dir.resolve("tcp"),
                HEADER + "\n   0: " + TcpReceiveQueue.entry(server) + " " + TcpReceiveQueue.entry(client) + " 01 zz\n");
        assertEquals(OptionalLong.empty(), TcpReceiveQueue.unreadBytes(server, client, tcp, dir.resolve("no")));
    }

    /** On this host's own kernel: bytes sent to a socket nobody reads are counted, and none once read. */
    @Test
    void seesUnreadBytesOfARealConnection() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(TcpReceiveQueue.PROC_TCP), "no /proc/net/tcp here");
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort());
                Socket accepted = listener.accept()) {
            InetSocketAddress local = (InetSocketAddress) accepted.getLocalSocketAddress();
            InetSocketAddress peer = (InetSocketAddress) accepted.getRemoteSocketAddress();
            assertEquals(OptionalLong.of(0), TcpReceiveQueue.unreadBytes(local, peer));
            client.getOutputStream().write(new byte[132]);
            client.getOutputStream().flush();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (TcpReceiveQueue.unreadBytes(local, peer).orElse(-1) != 132 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(OptionalLong.of(132), TcpReceiveQueue.unreadBytes(local, peer));
            assertEquals(132, accepted.getInputStream().readNBytes(132).length);
            assertEquals(OptionalLong.of(0), TcpReceiveQueue.unreadBytes(local, peer));
        }
    }
}
