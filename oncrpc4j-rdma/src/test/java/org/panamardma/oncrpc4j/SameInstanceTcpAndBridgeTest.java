package org.panamardma.oncrpc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc4j.DemoCases.Case;
import org.panamardma.oncrpc4j.HostBridge.Answer;
import org.panamardma.oncrpc4j.HostBridge.Room;
import org.panamardma.oncrpc4j.demo.Demo;
import org.panamardma.oncrpc4j.demo.DemoService;

/**
 * One instance of the demo program served by oncrpc4j's own TCP server ({@code OncRpcSvc}, on loopback) and by the
 * bridge at once: every procedure gives the same results, byte for byte, and the same errors, whichever way it is
 * called; oncrpc4j's own client decodes the same typed results. (On a device the bridge runs over RDMA; here its
 * RPC-over-RDMA protocol logic runs against a client memory played on the host.)
 */
class SameInstanceTcpAndBridgeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path files;

    DemoService demo;
    OncRpcSvc tcp;
    OncRpcBridge bridge;
    HostBridge host;
    TcpRpcClient ours;

    @BeforeEach
    void setUp() throws Exception {
        DemoFiles.create(files, DemoCases.FILES);
        demo = new DemoService(files, Duration.ofMillis(20));
        tcp = new OncRpcSvcBuilder()
                .withTCP()
                .withoutAutoPublish()
                .withBindAddress("127.0.0.1")
                .withPort(0)
                .withRpcService(DemoService.PROGRAM, demo)
                .withServiceName("demo-tcp")
                // worker threads, as services in production run: with oncrpc4j's default (the selector's own
                // thread) a program's RuntimeException, rethrown after SYSTEM_ERR, closes the TCP connection
                .withWorkerThreadIoStrategy()
                .build();
        tcp.start();
        bridge = new OncRpcBridge(
                Map.of(DemoService.PROGRAM, demo),
                null,
                call -> {},
                false,
                TIMEOUT,
                new FileChunkMemory(64 << 20, Duration.ofSeconds(1)));
        host = new HostBridge(bridge);
        ours = TcpRpcClient.connect(tcpAddress(), 64 << 20);
    }

    @AfterEach
    void tearDown() throws Exception {
        ours.close();
        bridge.close();
        tcp.stop();
    }

    InetSocketAddress tcpAddress() {
        return tcp.getInetSocketAddress(IpProtocolType.TCP);
    }

    /** The reply header with the XID of the bridge's calls (each client numbers its own). */
    static RpcMessage withXid(RpcMessage reply, int xid) {
        return switch (reply) {
            case AcceptedReply a -> new AcceptedReply(xid, a.verifier(), a.stat(), a.mismatch());
            case RejectedReply r -> new RejectedReply(xid, r.stat(), r.mismatch(), r.authStat());
            default -> throw new AssertionError("not a reply: " + reply);
        };
    }

    static Room room(Case c) {
        if (c.procedure() == Demo.READ_1) {
            return Room.write(c.replyBytes());
        }
        return c.replyBytes() > 3500 ? Room.reply(c.replyBytes() + 1024) : Room.NONE;
    }

    @Test
    void everyProcedureAnswersTheSameOverOncrpc4jsTcpAndOverTheBridge() throws Exception {
        for (Case c : DemoCases.all(2 << 20)) {
            Object tcp = DemoCallsOverTcp.overTcp(ours, c, TIMEOUT);
            byte[] overTcp = tcp instanceof byte[] results ? results : null;
            RpcMessage tcpError = tcp instanceof RpcMessage reply ? withXid(reply, OncRpcBridgeTest.XID) : null;
            Answer rdma = host.call(
                    HostBridge.call(
                            OncRpcBridgeTest.XID, 2, Demo.DEMO, c.version(), c.procedure(), OpaqueAuth.NONE, c.args()),
                    room(c));
            if (c.results() == null) {
                assertNotNull(tcpError, c.name() + " fails over TCP");
                assertEquals(tcpError, rdma.rpc(), c.name());
            } else {
                assertNull(tcpError, c.name());
                assertEquals(AcceptedReply.success(OncRpcBridgeTest.XID, OpaqueAuth.NONE), rdma.rpc(), c.name());
                assertArrayEquals(overTcp, rdma.results(), c.name() + ": the same results, byte for byte");
            }
        }
    }

    @Test
    void oncrpc4jsOwnClientDecodesTheSameTypedResults() throws Exception {
        try (OncRpcClient client = new OncRpcClient(
                InetAddress.getLoopbackAddress(),
                IpProtocolType.TCP,
                tcpAddress().getPort())) {
            RpcTransport transport = client.connect();
            RpcCall call = new RpcCall(Demo.DEMO, Demo.DEMO_V1, new RpcAuthTypeNone(), transport);
            for (Case c : DemoCases.all(1 << 20)) {
                if (c.results() == null || c.version() != Demo.DEMO_V1) {
                    continue;
                }
                XdrAble overTcp = c.results().get();
                call.call(c.procedure(), c.args(), overTcp, 30, TimeUnit.SECONDS, null);
                XdrAble overBridge = host.call(
                                HostBridge.call(
                                        OncRpcBridgeTest.XID,
                                        2,
                                        Demo.DEMO,
                                        1,
                                        c.procedure(),
                                        OpaqueAuth.NONE,
                                        c.args()),
                                room(c))
                        .results(c.results().get());
                assertArrayEquals(HostBridge.xdr(overTcp), HostBridge.xdr(overBridge), c.name());
            }
            // and a failure, as oncrpc4j's client reports it
            assertThrows(
                    org.dcache.oncrpc4j.rpc.OncRpcAcceptedException.class,
                    () -> call.call(
                            99,
                            org.dcache.oncrpc4j.xdr.XdrVoid.XDR_VOID,
                            org.dcache.oncrpc4j.xdr.XdrVoid.XDR_VOID,
                            30,
                            TimeUnit.SECONDS,
                            null));
        }
    }
}
