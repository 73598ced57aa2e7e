package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.CallArrival;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Hands one connection's assembled calls to the transport's own program ({@link TransportProgram}) or the
 * {@link RpcService}, reading of a call whose data may still be arriving ({@link CallArrival}) only what arrived.
 */
final class CallDispatch {
    private final RpcService service;
    private final TransportProgram transportProgram;
    private final ConnectionSettings settings;
    private final Optional<InetSocketAddress> localAddress;
    private final Optional<InetSocketAddress> remoteAddress;

    CallDispatch(
            RpcService service,
            TransportProgram transportProgram,
            ConnectionSettings settings,
            Optional<InetSocketAddress> localAddress,
            Optional<InetSocketAddress> remoteAddress) {
        this.service = service;
        this.transportProgram = transportProgram;
        this.settings = settings;
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
    }

    /**
     * Decodes the RPC call header and runs it (or the transport's own program) into {@code out}. With data still
     * arriving, only what has arrived is decoded: a header reaching into a Read chunk (a client may put one anywhere)
     * and the transport's own program wait for the data first.
     */
    void run(int transportXid, MemorySegment call, XdrEncoder out, CallArrival arrival) throws IOException {
        XdrDecoder in = new XdrDecoder(call);
        RpcMessage message = decodeHeader(in);
        if (!arrival.arrived(call.asSlice(0, in.position()))) {
            arrival.await();
            in = new XdrDecoder(call);
            message = decodeHeader(in);
        }
        if (!(message instanceof RpcCall rpcCall)) {
            // Not a call we can read: still answer, under the transport XID, so the client's credit comes back.
            RpcMessageCodec.encode(AcceptedReply.failure(transportXid, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS), out);
            return;
        }
        if (!arrival.isDone() && transportProgram.serves(rpcCall)) {
            arrival.await();
        }
        if (!transportProgram.dispatch(rpcCall, in, out, settings)) {
            RpcService.Incoming incoming = new RpcService.Incoming(rpcCall, call, in, localAddress, remoteAddress);
            if (arrival.isDone()) {
                service.serve(incoming, out);
            } else {
                arrival.during(() -> {
                    service.serve(incoming, out);
                    return null;
                });
            }
        }
    }

    private static RpcMessage decodeHeader(XdrDecoder in) {
        try {
            return RpcMessageCodec.decode(in);
        } catch (XdrException garbage) {
            return null;
        }
    }
}
