package org.panamardma.rpcrdma;

import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * The Connection Configuration Protocol of draft-ietf-nfsv4-rpcrdma-08 section 6 (program 100400, version 1,
 * procedure CONF_RDMA): its argument and result, shared by the server that answers it and the client that asks.
 */
public final class ConfigRdma {
    public static final int PROGRAM = 100400;
    public static final int VERSION = 1;
    public static final int CONF_RDMA = 1;

    private ConfigRdma() {
    }

    /**
     * {@code config_rdma_req}: the largest inline call the client will send, the largest inline reply it accepts,
     * and the RDMA Reads it lets be active at itself.
     */
    public record Request(int maxCallSendSize, int maxReplySendSize, int maxRdmaRead) {
        public void encodeTo(XdrEncoder out) {
            out.putInt(maxCallSendSize).putInt(maxReplySendSize).putInt(maxRdmaRead);
        }

        public static Request decode(XdrDecoder in) {
            return new Request(in.getInt("maxcall_sendsize"), in.getInt("maxreply_sendsize"),
                    in.getInt("maxrdmaread"));
        }
    }

    /**
     * {@code config_rdma_reply}: the largest inline call the server accepts, the alignment it recommends for opaque
     * data, and the RDMA Reads it has active at the peer at most.
     */
    public record Reply(int maxCallSendSize, int align, int maxRdmaRead) {
        public void encodeTo(XdrEncoder out) {
            out.putInt(maxCallSendSize).putInt(align).putInt(maxRdmaRead);
        }

        public static Reply decode(XdrDecoder in) {
            return new Reply(in.getInt("maxcall_sendsize"), in.getInt("align"), in.getInt("maxrdmaread"));
        }
    }

}
