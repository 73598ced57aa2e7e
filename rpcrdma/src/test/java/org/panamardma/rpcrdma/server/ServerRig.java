package org.panamardma.rpcrdma.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * The server device tests' prelude in one place (registered with {@code @RegisterExtension}): each server bound to a
 * fresh port on the peer device's address (siw reuses a closed port badly), and everything a test opened (servers,
 * raw peers, clients) closed after it, the last opened first.
 */
final class ServerRig implements AfterEachCallback {
    private final AtomicInteger ports;
    private final List<AutoCloseable> open = new ArrayList<>();

    /** @param ports the test class's port counter ({@link #ports}), shared by its tests so no two reuse a port */
    ServerRig(AtomicInteger ports) {
        this.ports = ports;
    }

    /** A port counter starting at a random point of {@code [first, first + spread)}: one range per test class. */
    static AtomicInteger ports(int first, int spread) {
        return new AtomicInteger(first + new Random().nextInt(spread));
    }

    /** A fresh address to bind a server to: the peer device's IPv4 address and the class's next port. */
    InetSocketAddress nextAddress(RdmaTestDevice device) {
        return new InetSocketAddress(RpcRdmaServerDeviceTests.peerAddress(device), ports.getAndIncrement());
    }

    /** Starts {@code builder}'s server, closed after the test. */
    RpcRdmaServer start(RpcRdmaServer.Builder builder) throws Exception {
        return closeAfter(builder.start());
    }

    /** A hand-driven requester connected to {@code server}, closed after the test. */
    RawPeer peer(RpcRdmaServer server, Duration timeout) throws Exception {
        return closeAfter(RawPeer.connect(server.address(), timeout));
    }

    /** Registers {@code resource} to be closed after the test; returns it. */
    <T extends AutoCloseable> T closeAfter(T resource) {
        open.add(resource);
        return resource;
    }

    /** Takes back {@code resource}, which the test closes itself. */
    void forget(AutoCloseable resource) {
        open.remove(resource);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        } finally {
            open.clear();
        }
    }
}
