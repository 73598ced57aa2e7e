package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * Makes one client's host stop answering at the transport level without closing anything: the guest kernel drops,
 * on the client's netdev, every packet sent to that client's queue pair (a {@code tc} ingress filter; the testbed
 * image has iproute2 but neither nftables nor iptables). The client's device then never sees the server's RDMA Read
 * requests, Writes, Sends or acknowledgements, as if its cable were pulled; other queue pairs on the same devices
 * go on. For RoCE (RoCEv2, UDP 4791) the filter matches the destination QP number in the Base Transport Header; for
 * iWARP (siw runs over TCP) the client's TCP port. {@link #close()} removes the filter.
 */
final class PacketDrop implements AutoCloseable {
    /** Where the BTH's destination QP (its bytes 5-7) lies from the start of an option-less IPv4 header. */
    private static final int BTH_DEST_QP_AT = 20 + 8 + 4;

    private final String netdev;

    private PacketDrop(String netdev) {
        this.netdev = netdev;
    }

    /** Starts dropping what reaches {@code client}, connected from {@code clientDevice}. */
    static PacketDrop toClient(RdmaTestDevice clientDevice, RawPeer client) throws IOException, InterruptedException {
        String netdev = clientDevice.netdev();
        List<String> match = new ArrayList<>(List.of("tc", "filter", "add", "dev", netdev, "parent", "ffff:"));
        match.addAll(List.of("protocol", "ip", "prio", "1", "u32"));
        if (clientDevice.transport() == Transport.ROCE) {
            int qpn = client.rdma.queuePair().qpNumber();
            match.addAll(List.of("match", "ip", "protocol", "17", "0xff", "match", "ip", "dport", "4791", "0xffff"));
            match.addAll(List.of("match", "u32", Integer.toString(qpn & 0xff_ffff), "0x00ffffff"));
            match.addAll(List.of("at", Integer.toString(BTH_DEST_QP_AT)));
        } else {
            int port = client.rdma.localAddress().orElseThrow().getPort();
            match.addAll(List.of("match", "ip", "protocol", "6", "0xff", "match", "ip", "dport"));
            match.addAll(List.of(Integer.toString(port), "0xffff"));
        }
        match.addAll(List.of("action", "drop"));
        run(List.of("tc", "qdisc", "add", "dev", netdev, "ingress"));
        PacketDrop drop = new PacketDrop(netdev);
        try {
            run(match);
        } catch (IOException | RuntimeException e) {
            drop.close();
            throw e;
        }
        return drop;
    }

    /** {@return the filter's counters (packets dropped), for the test's log} */
    String statistics() {
        try {
            return runForOutput(List.of("tc", "-s", "filter", "show", "dev", netdev, "parent", "ffff:"));
        } catch (IOException | InterruptedException e) {
            return "no statistics: " + e;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run(List.of("tc", "qdisc", "del", "dev", netdev, "ingress"));
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        runForOutput(command);
    }

    private static String runForOutput(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no exit in 30 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + ": " + out);
        }
        return out;
    }
}
