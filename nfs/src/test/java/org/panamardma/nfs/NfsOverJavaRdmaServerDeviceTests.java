package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.rpc.RdmaRpcTransport;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.server.ReplyPath;
import org.panamardma.rpcrdma.server.RpcRdmaServer;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * The NFSv3 client over RPC-over-RDMA against this project's own server: the stand-in NFSv3 program
 * ({@link StandInNfs3Server}) served by {@link RpcRdmaServer}. READ data must arrive by RDMA Write in the caller's
 * buffer (Write list) and WRITE data leave by RDMA Read from the caller's memory (Read chunk); both ends' bytes and
 * the server's path counts are checked.
 */
abstract class NfsOverJavaRdmaServerDeviceTests {
    static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final AtomicInteger PORTS = new AtomicInteger(30_000 + new Random().nextInt(5_000));

    @Test
    void readWriteAndListOverOurOwnServer(RdmaTestDevice device) throws Exception {
        byte[] content = new byte[300_000];
        new Random(1).nextBytes(content);
        List<AuthSysParms> credentials = new CopyOnWriteArrayList<>();
        RdmaTestDevice peer = device.peer().orElseThrow();
        InetAddress ip = peer.ipv4().orElseThrow();
        try (RpcRdmaServer server = RpcRdmaServer.builder(StandInNfs3Server.dispatcher(content, credentials))
                        .bind(new InetSocketAddress(ip, PORTS.getAndIncrement()))
                        .timeout(TIMEOUT)
                        .start();
                RdmaRpcTransport transport = RdmaRpcTransport.connect(
                        server.address(), RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT));
                Arena arena = Arena.ofConfined()) {
            Nfs3Client nfs = new Nfs3Client(transport, Nfs3Client.authSys("rdma-test", 0, 0), TIMEOUT);
            nfs.ping();
            assertEquals(content.length, nfs.getattr(StandInNfs3Server.FILE).size());
            assertEquals("rdma-test", credentials.getFirst().machineName());

            MemorySegment into = arena.allocate(content.length);
            assertEquals(content.length, nfs.readFully(StandInNfs3Server.FILE, 0, into, 64 << 10));
            assertArrayEquals(content, into.toArray(ValueLayout.JAVA_BYTE));
            long writeList = server.statistics().replies(ReplyPath.WRITE_LIST);
            assertTrue(writeList >= 5, "READ data by Write list: " + server.statistics());

            byte[] data = new byte[200_000];
            new Random(2).nextBytes(data);
            MemorySegment from = arena.allocate(data.length);
            from.copyFrom(MemorySegment.ofArray(data));
            assertEquals(
                    data.length,
                    nfs.write(StandInNfs3Server.FILE, 50_000, from, StableHow.FILE_SYNC)
                            .count());
            byte[] stored = new byte[data.length];
            System.arraycopy(content, 50_000, stored, 0, data.length);
            assertArrayEquals(data, stored);
            assertEquals(1, server.statistics().readChunkCalls(), "WRITE data by Read chunk");

            List<DirEntry3> entries = nfs.listDirectory(StandInNfs3Server.DIR, 4096, false);
            assertEquals(StandInNfs3Server.ENTRIES, entries.size());
            System.out.println("NFS over our RPC-over-RDMA server on " + peer.name() + ": " + server.statistics());
        }
    }
}
