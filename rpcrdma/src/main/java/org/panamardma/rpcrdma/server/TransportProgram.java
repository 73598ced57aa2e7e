package org.panamardma.rpcrdma.server;

import org.panamardma.oncrpc.RpcCall;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * A program the transport answers itself, because its answer depends on the connection (the Connection
 * Configuration Protocol of draft-ietf-nfsv4-rpcrdma-08 section 6).
 */
@FunctionalInterface
public interface TransportProgram {
    /** Answers nothing: every call goes to the dispatcher. */
    TransportProgram NONE = (call, arguments, out, settings) -> false;

    /**
     * {@return {@code true} if the call was this program's and its whole reply has been written to {@code out}}
     *
     * @param call the call's header
     * @param arguments its arguments
     * @param out where the reply goes
     * @param settings the connection's settings
     */
    boolean dispatch(RpcCall call, XdrDecoder arguments, XdrEncoder out, ConnectionSettings settings);
}
