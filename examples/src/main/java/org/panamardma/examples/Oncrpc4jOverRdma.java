package org.panamardma.examples;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.panamardma.oncrpc4j.OncRpcRdmaSvc;
import org.panamardma.oncrpc4j.OncRpcRdmaSvcBuilder;

/**
 * The README's "oncrpc4j services over RDMA": one oncrpc4j service instance on oncrpc4j's own TCP server and on the
 * bridge at once ({@link #serve}). The service is written as oncrpc4j users write them: a {@link RpcDispatchable}
 * decoding its arguments with {@code call.retrieveCall} and answering with {@code call.reply}.
 */
public final class Oncrpc4jOverRdma {
    private Oncrpc4jOverRdma() {}

    /** The example's ONC RPC program number (in the range RFC 5531 leaves to users). */
    public static final int PROG = 0x2000_0178;

    /** An echo program: procedure 0 is NULL, procedure 1 returns its variable-length opaque argument. */
    public static final class EchoService implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
            switch (call.getProcedure()) {
                case 0 -> call.reply(XdrVoid.XDR_VOID);
                case 1 -> {
                    Opaque args = new Opaque();
                    call.retrieveCall(args);
                    call.reply(args);
                }
                default -> call.failProcedureUnavailable();
            }
        }
    }

    /** An XDR variable-length opaque, up to 16 MiB. */
    static final class Opaque implements XdrAble {
        byte[] bytes = new byte[0];

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            bytes = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeDynamicOpaque(bytes);
        }
    }

    /**
     * Serves {@link EchoService} on {@code host}, over RPC-over-RDMA on {@code rdmaPort} and over oncrpc4j's TCP on
     * {@code tcpPort}, while {@code whileServing} runs.
     */
    public static void serve(String host, int rdmaPort, int tcpPort, Runnable whileServing) throws IOException {
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: oncrpc4j
        RpcDispatchable service = new EchoService();                         // any oncrpc4j RpcDispatchable, as it is
        OncRpcProgram program = new OncRpcProgram(PROG, 1);
        OncRpcSvc tcp = new OncRpcSvcBuilder().withTCP().withBindAddress(host).withPort(tcpPort)
                .withoutAutoPublish().withWorkerThreadIoStrategy()
                .withRpcService(program, service).build();                    // oncrpc4j's own TCP server
        OncRpcRdmaSvc rdma = new OncRpcRdmaSvcBuilder()                       // the bridge: org.panamardma.oncrpc4j
                .withBindAddress(host).withPort(rdmaPort)                     // rdma_cm; 0.0.0.0 for every RDMA device
                .withRpcService(program, service).withCredits(32)             // the same instance
                .withRdmaServer(b -> b.maxConnections(64)).build();           // any limit of RpcRdmaServer.Builder
        tcp.start();
        rdma.start();
        try {
            whileServing.run();                                               // until the application shuts down
        } finally {
            rdma.stop();
            tcp.stop();
        }
        // README end
        // spotless:on
    }
}
