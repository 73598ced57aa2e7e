package org.panamardma.rpcrdma;

import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * The Connection Configuration Protocol of draft-ietf-nfsv4-rpcrdma-08 section 6 (program 100400, version 1,
 * procedure CONF_RDMA): its argument and result, shared by the server that answers it and the client that asks.
 */
public final class ConfigRdma {
    /** The program number of the Connection Configuration Protocol. */
    public static final int PROGRAM = 100400;
    /** Its version. */
    public static final int VERSION = 1;
    /** Its one procedure, {@code CONF_RDMA}. */
    public static final int CONF_RDMA = 1;

    private ConfigRdma() {}

    /**
     * {@code config_rdma_req}: the largest inline call the client will send, the largest inline reply it accepts,
     * and the RDMA Reads it lets be active at itself.
     *
     * @param maxCallSendSize {@code maxcall_sendsize}: the largest inline call the client sends
     * @param maxReplySendSize {@code maxreply_sendsize}: the largest inline reply the client accepts
     * @param maxRdmaRead {@code maxrdmaread}: the RDMA Reads the client lets be active at itself
     */
    public record Request(int maxCallSendSize, int maxReplySendSize, int maxRdmaRead) {
        /**
         * Writes the three words.
         *
         * @param out where to
         */
        public void encodeTo(XdrEncoder out) {
            out.putInt(maxCallSendSize).putInt(maxReplySendSize).putInt(maxRdmaRead);
        }

        /**
         * Reads the three words.
         *
         * @param in where from
         * @return the request
         * @throws org.panamardma.xdr.XdrException if the words are not there
         */
        public static Request decode(XdrDecoder in) {
            return new Request(in.getInt("maxcall_sendsize"), in.getInt("maxreply_sendsize"), in.getInt("maxrdmaread"));
        }
    }

    /**
     * {@code config_rdma_reply}: the largest inline call the server accepts, the alignment it recommends for opaque
     * data, and the RDMA Reads it has active at the peer at most.
     *
     * @param maxCallSendSize {@code maxcall_sendsize}: the largest inline call the server accepts
     * @param align {@code align}: the alignment the server recommends for opaque data
     * @param maxRdmaRead {@code maxrdmaread}: the RDMA Reads the server has active at the peer at most
     */
    public record Reply(int maxCallSendSize, int align, int maxRdmaRead) {
        /**
         * Writes the three words.
         *
         * @param out where to
         */
        public void encodeTo(XdrEncoder out) {
            out.putInt(maxCallSendSize).putInt(align).putInt(maxRdmaRead);
        }

        /**
         * Reads the three words.
         *
         * @param in where from
         * @return the reply
         * @throws org.panamardma.xdr.XdrException if the words are not there
         */
        public static Reply decode(XdrDecoder in) {
            return new Reply(in.getInt("maxcall_sendsize"), in.getInt("align"), in.getInt("maxrdmaread"));
        }
    }
}
