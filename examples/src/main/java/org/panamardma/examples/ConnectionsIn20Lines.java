package org.panamardma.examples;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;

/** The README's "Connections in 20 lines": server and client in one process, on the address {@code host}. */
public final class ConnectionsIn20Lines {
    private ConnectionsIn20Lines() {}

    /** Runs it; {@code host} is the address of an RDMA device (10.77.0.2, rxe1, in the testbed). */
    public static void run(String host) throws Exception {
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: connections
        // server: accepts on an address; each connection gets its own QP, CQ, completion channel and poller thread
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(host, 7472), ConnectionOptions.DEFAULTS);
             RdmaConnection client = RdmaClient.connect(new InetSocketAddress(host, 7472))) {  // rdma_cm inside
            RdmaConnection atServer = server.accept(Duration.ofSeconds(30));
            CompletableFuture<Received> request = atServer.receive();
            MemoryRegion buf = client.protectionDomain().allocate(4096, Set.of(Access.LOCAL_WRITE));
            buf.segment().setString(0, "hello by SEND and by WRITE");
            client.send(buf, 0, 100).get();                              // futures complete on the connection's poller
            byte[] bytes = request.get().data();                          // the 100 bytes, at the server
            Set<Access> remoteAccess = Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            MemoryRegion counter = atServer.protectionDomain().allocate(8, remoteAccess);      // one 8-byte word
            MemoryRegion inbox = atServer.protectionDomain().allocate(4096, remoteAccess);
            long before = client.fetchAdd(counter.address(), counter.rkey(), 1).get();     // RFC 7306 FetchAdd
            client.write(buf, 0, 64, inbox.remote()).get();  // 64 bytes into 4 KiB; more than a region holds is refused
            System.out.printf("SEND: %s; counter %d -> %d; WRITE: %s%n", new String(bytes, 0, 26,
                    StandardCharsets.US_ASCII), before, counter.segment().get(ValueLayout.JAVA_LONG, 0),
                    inbox.segment().getString(0));
        }   // close is graceful; a peer that vanishes fails pending futures with ConnectionClosedException
        // README end
        // spotless:on
    }
}
