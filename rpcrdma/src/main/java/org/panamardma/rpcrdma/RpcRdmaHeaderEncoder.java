package org.panamardma.rpcrdma;

import java.lang.foreign.MemorySegment;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Encodes transport headers in the RFC 8166 form (section 4.1; the same words as draft-ietf-nfsv4-rpcrdma-08
 * section 4.3 for RDMA_MSG, RDMA_NOMSG and RDMA_ERROR with ERR_VERS or ERR_CHUNK). The draft-only RDMA_MSGP and
 * RDMA_DONE encode too, for draft-era peers and for tests; RFC 8166 section 4.6 says not to send them to others.
 * Stateless.
 */
public final class RpcRdmaHeaderEncoder {
    private RpcRdmaHeaderEncoder() {}

    /**
     * Writes {@code header} at the encoder's position.
     *
     * @param header the header
     * @param out where to write it
     * @throws XdrException {@link XdrException.Reason#NO_SPACE} if it does not fit
     */
    public static void encode(RpcRdmaHeader header, XdrEncoder out) {
        if (out.remaining() < size(header)) {
            throw new XdrException(
                    XdrException.Reason.NO_SPACE,
                    out.position(),
                    header.procedure() + " header needs " + size(header) + " bytes, " + out.remaining() + " left");
        }
        out.putInt(header.xid())
                .putInt(RpcRdmaHeader.VERSION)
                .putInt(header.credits())
                .putEnum(header.procedure().value());
        switch (header) {
            case RdmaMsg msg -> encodeChunkLists(msg.chunks(), out);
            case RdmaNoMsg noMsg -> encodeChunkLists(noMsg.chunks(), out);
            case RdmaMsgp msgp -> {
                out.putInt(msgp.alignment()).putInt(msgp.threshold());
                encodeChunkLists(msgp.chunks(), out);
            }
            case RdmaDone done -> {
                // void body
            }
            case RdmaError.VersionMismatch vers ->
                out.putEnum(RdmaError.ERR_VERS).putInt(vers.low()).putInt(vers.high());
            case RdmaError.ChunkError chunk -> out.putEnum(RdmaError.ERR_CHUNK);
            case RdmaError.Unrecognized other -> {
                out.putEnum(other.code());
                other.extra().forEach(out::putInt);
            }
        }
    }

    /**
     * {@return {@code header} encoded, in an array of exactly its size}
     *
     * @param header the header
     */
    public static byte[] toBytes(RpcRdmaHeader header) {
        byte[] b = new byte[size(header)];
        encode(header, new XdrEncoder(MemorySegment.ofArray(b)));
        return b;
    }

    /**
     * {@return the encoded size of {@code header}, for sizing Send buffers and inline-threshold decisions}
     *
     * @param header the header
     */
    public static int size(RpcRdmaHeader header) {
        int fixed = 4 * 4;
        return fixed
                + switch (header) {
                    case RdmaMsg msg -> msg.chunks().xdrSize();
                    case RdmaNoMsg noMsg -> noMsg.chunks().xdrSize();
                    case RdmaMsgp msgp -> 8 + msgp.chunks().xdrSize();
                    case RdmaDone done -> 0;
                    case RdmaError.VersionMismatch vers -> 12;
                    case RdmaError.ChunkError chunk -> 4;
                    case RdmaError.Unrecognized other -> 4 + 4 * other.extra().size();
                };
    }

    /**
     * Writes the three lists. The Read and Write lists are XDR linked lists (optional-data chained through
     * {@code *next}), so each entry is preceded by TRUE and the list ends with FALSE (draft section 4.3).
     */
    static void encodeChunkLists(ChunkLists chunks, XdrEncoder out) {
        for (ReadSegment read : chunks.readList()) {
            out.putBoolean(true).putInt(read.position());
            encodeSegment(read.target(), out);
        }
        out.putBoolean(false);
        for (WriteChunk write : chunks.writeList()) {
            out.putBoolean(true);
            encodeWriteChunk(write, out);
        }
        out.putBoolean(false);
        out.putOptional(chunks.replyChunk(), (o, chunk) -> encodeWriteChunk(chunk, o));
    }

    private static void encodeWriteChunk(WriteChunk chunk, XdrEncoder out) {
        out.putInt(chunk.segments().size());
        for (RdmaSegment segment : chunk.segments()) {
            encodeSegment(segment, out);
        }
    }

    private static void encodeSegment(RdmaSegment segment, XdrEncoder out) {
        out.putInt(segment.handle()).putInt(segment.length()).putHyper(segment.offset());
    }
}
