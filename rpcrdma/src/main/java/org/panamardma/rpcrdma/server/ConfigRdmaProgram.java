package org.panamardma.rpcrdma.server;

import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ConfigRdma;
import org.panamardma.rpcrdma.ConfigRdma.Reply;
import org.panamardma.rpcrdma.ConfigRdma.Request;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * The Connection Configuration Protocol of draft-ietf-nfsv4-rpcrdma-08 section 6.2 (program 100400, version 1):
 * CONF_RDMA answers with this connection's actual values, which is why the transport serves it rather than the
 * shared dispatcher. NULL (procedure 0) is answered too, as every ONC RPC program has one.
 *
 * <pre>
 * struct config_rdma_req   { uint32 maxcall_sendsize; uint32 maxreply_sendsize; uint32 maxrdmaread; };
 * struct config_rdma_reply { uint32 maxcall_sendsize; uint32 align; uint32 maxrdmaread; };
 * </pre>
 * The server's inline thresholds are fixed once the connection is made (its receive buffers are posted), so the
 * client's request is read, checked for form, and answered with what the connection has (section 6.2: "the server
 * MAY return a maxcall_sendsize value that is smaller or larger than the client's request").
 */
public final class ConfigRdmaProgram implements TransportProgram {
    /** The program number of the Connection Configuration Protocol. */
    public static final int PROGRAM = ConfigRdma.PROGRAM;
    /** Its version. */
    public static final int VERSION = ConfigRdma.VERSION;
    /** The NULL procedure. */
    public static final int NULL = 0;
    /** The CONF_RDMA procedure. */
    public static final int CONF_RDMA = ConfigRdma.CONF_RDMA;
    /** The alignment announced: XDR's 4 bytes; this server asks for no padding of opaque data. */
    public static final int ALIGN = 4;

    /** The program (it keeps no state: each answer comes from the connection's settings). */
    public static final ConfigRdmaProgram INSTANCE = new ConfigRdmaProgram();

    private ConfigRdmaProgram() {}

    /**
     * The reply for a connection with {@code settings}.
     *
     * @param settings the connection's settings
     * @return its {@code config_rdma_reply}
     */
    public static Reply replyFor(ConnectionSettings settings) {
        return new Reply(settings.receiveInline(), ALIGN, settings.maxRdmaReads());
    }

    @Override
    public boolean dispatch(RpcCall call, XdrDecoder arguments, XdrEncoder out, ConnectionSettings settings) {
        if (call.program() != PROGRAM || call.rpcVersion() != 2) {
            return false;
        }
        int xid = call.xid();
        if (call.version() != VERSION) {
            RpcMessageCodec.encode(AcceptedReply.progMismatch(xid, OpaqueAuth.NONE, VERSION, VERSION), out);
        } else if (call.procedure() == NULL) {
            RpcMessageCodec.encode(AcceptedReply.success(xid, OpaqueAuth.NONE), out);
        } else if (call.procedure() == CONF_RDMA) {
            try {
                Request.decode(arguments);
            } catch (XdrException garbage) {
                RpcMessageCodec.encode(AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS), out);
                return true;
            }
            RpcMessageCodec.encode(AcceptedReply.success(xid, OpaqueAuth.NONE), out);
            replyFor(settings).encodeTo(out);
        } else {
            RpcMessageCodec.encode(AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.PROC_UNAVAIL), out);
        }
        return true;
    }
}
