package org.panamardma.examples;

// spotless:off (the README shows this region as written here: ReadmeExamplesTest)
// README begin: hello
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;

public class HelloRdma {
    public static void main(String[] args) throws Exception {
        var address = new InetSocketAddress(args.length > 0 ? args[0] : "10.77.0.2", 7471); // an RDMA device's IP
        try (RdmaServer server = RdmaServer.listen(address, ConnectionOptions.DEFAULTS);
             RdmaConnection client = RdmaClient.connect(address);
             RdmaConnection peer = server.accept(Duration.ofSeconds(30))) {
            MemoryRegion target = peer.protectionDomain().allocate(64,
                    Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            MemoryRegion source = client.protectionDomain().allocate(64, Set.of(Access.LOCAL_WRITE));
            source.segment().setString(0, "Hello, RDMA!");
            client.write(source, 0, 64, target.remote()).get();    // RDMA WRITE: the peer's CPU takes no part
            client.read(source, 0, 1, target.remote()).get();      // answered once the WRITE is placed (iWARP too)
            System.out.println(peer.deviceName() + " received: " + target.segment().getString(0));
        }
    }
}
// README end
// spotless:on
