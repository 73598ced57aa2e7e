package org.panamardma.rpcrdma;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;

/**
 * Decodes and checks received transport headers. Accepts everything RFC 8166 peers send and also the draft's
 * forms (RDMA_MSGP, RDMA_DONE, error codes other than ERR_VERS and ERR_CHUNK), leaving it to the transport to
 * refuse those it does not handle.
 *
 * <p>Every count is checked against {@link HeaderLimits} and against the bytes left before anything proportional
 * to it is allocated; every refusal is an {@link RpcRdmaHeaderException} with a distinct {@link HeaderFault}.
 * Positions are checked here for order; their relation to the RPC message's length needs that length and is
 * checked by {@link ReadListPositions#validate}.
 *
 * <p>Immutable and thread-safe.
 */
public final class RpcRdmaHeaderDecoder {
    private final HeaderLimits limits;

    /**
     * A decoder enforcing {@code limits}.
     *
     * @param limits the bounds a received header must keep
     */
    public RpcRdmaHeaderDecoder(HeaderLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** A decoder enforcing {@link HeaderLimits#DEFAULT}. */
    public RpcRdmaHeaderDecoder() {
        this(HeaderLimits.DEFAULT);
    }

    /** {@return the limits enforced} */
    public HeaderLimits limits() {
        return limits;
    }

    /**
     * Decodes the transport header at the start of a received message.
     *
     * @param message the received bytes (the Send's payload)
     * @return the header and its length
     * @throws RpcRdmaHeaderException if the header is refused
     */
    public DecodedHeader decode(MemorySegment message) throws RpcRdmaHeaderException {
        return new Parse(new XdrDecoder(message)).header();
    }

    /** One decode: the cursor and what has been learnt so far, for error reports. */
    private final class Parse {
        private final XdrDecoder in;
        private boolean xidKnown;
        private int xid;
        private boolean versionRecognized;

        Parse(XdrDecoder in) {
            this.in = in;
        }

        RpcRdmaHeaderException fault(HeaderFault fault, long offset, String detail) {
            return new RpcRdmaHeaderException(fault, offset, xidKnown, xid, versionRecognized, detail);
        }

        DecodedHeader header() throws RpcRdmaHeaderException {
            try {
                xid = in.getInt("rdma_xid");
                xidKnown = true;
                long versionAt = in.position();
                int version = in.getInt("rdma_vers");
                if (version != RpcRdmaHeader.VERSION) {
                    // Stop here: another version's header need not look like ours past this word.
                    throw fault(
                            HeaderFault.VERSION_MISMATCH,
                            versionAt,
                            "version " + Integer.toUnsignedString(version) + ", supported " + RpcRdmaHeader.VERSION);
                }
                versionRecognized = true;
                int credits = in.getInt("rdma_credit");
                long procAt = in.position();
                int procValue = in.getInt("rdma_proc");
                RdmaProcedure procedure = RdmaProcedure.fromValue(procValue);
                if (procedure == null) {
                    throw fault(
                            HeaderFault.UNKNOWN_PROCEDURE, procAt, "rdma_proc " + Integer.toUnsignedString(procValue));
                }
                RpcRdmaHeader header = switch (procedure) {
                    case RDMA_MSG -> new RdmaMsg(xid, credits, chunkLists());
                    case RDMA_NOMSG -> noMsg(credits);
                    case RDMA_MSGP -> {
                        int alignment = in.getInt("rdma_align");
                        int threshold = in.getInt("rdma_thresh");
                        yield new RdmaMsgp(xid, credits, alignment, threshold, chunkLists());
                    }
                    case RDMA_DONE -> new RdmaDone(xid, credits);
                    case RDMA_ERROR -> error(credits);
                };
                return new DecodedHeader(header, (int) in.position());
            } catch (XdrException e) {
                HeaderFault fault = e.reason() == XdrException.Reason.TRUNCATED
                        ? HeaderFault.TRUNCATED
                        : HeaderFault.BAD_DISCRIMINATOR;
                throw fault(fault, e.offset(), e.getMessage());
            }
        }

        private RdmaNoMsg noMsg(int credits) throws RpcRdmaHeaderException {
            long at = in.position();
            ChunkLists chunks = chunkLists();
            if (chunks.isEmpty()) {
                throw fault(HeaderFault.NOMSG_WITHOUT_CHUNKS, at, "RDMA_NOMSG with no chunk to carry the message");
            }
            return new RdmaNoMsg(xid, credits, chunks);
        }

        private RdmaError error(int credits) {
            int code = in.getInt("rdma_err");
            return switch (code) {
                case RdmaError.ERR_VERS ->
                    new RdmaError.VersionMismatch(
                            xid, credits, in.getInt("rdma_vers_low"), in.getInt("rdma_vers_high"));
                case RdmaError.ERR_CHUNK -> new RdmaError.ChunkError(xid, credits);
                default -> {
                    // The draft's default arm, rdma_extra[8]; RFC 8166 has none, so take what is there.
                    List<Integer> extra = new ArrayList<>();
                    while (extra.size() < RdmaError.Unrecognized.MAX_EXTRA && in.remaining() >= 4) {
                        extra.add(in.getInt());
                    }
                    yield new RdmaError.Unrecognized(xid, credits, code, extra);
                }
            };
        }

        private ChunkLists chunkLists() throws RpcRdmaHeaderException {
            List<ReadSegment> reads = readList();
            List<WriteChunk> writes = writeList();
            Optional<WriteChunk> reply = in.getBoolean() ? Optional.of(writeChunk("Reply chunk")) : Optional.empty();
            return new ChunkLists(reads, writes, reply);
        }

        private List<ReadSegment> readList() throws RpcRdmaHeaderException {
            List<ReadSegment> reads = new ArrayList<>();
            int previous = 0;
            while (in.getBoolean()) {
                long entryAt = in.position();
                if (reads.size() == limits.maxReadSegments()) {
                    throw fault(
                            HeaderFault.TOO_MANY_READ_SEGMENTS,
                            entryAt,
                            "more than " + limits.maxReadSegments() + " Read list entries");
                }
                int position = in.getInt("read position");
                if (position < 0) {
                    throw fault(
                            HeaderFault.POSITION_BEYOND_MESSAGE,
                            entryAt,
                            "read position " + Integer.toUnsignedString(position)
                                    + " beyond any message of at most 2^31-1 bytes");
                }
                if (position < previous) {
                    throw fault(
                            HeaderFault.POSITION_DECREASING,
                            entryAt,
                            "read position " + position + " after position " + previous);
                }
                previous = position;
                reads.add(new ReadSegment(position, segment()));
            }
            checkReadChunkLengths(reads);
            return reads;
        }

        private void checkReadChunkLengths(List<ReadSegment> reads) throws RpcRdmaHeaderException {
            for (ReadChunk chunk : ReadChunk.group(reads)) {
                try {
                    chunk.length();
                } catch (ArithmeticException overflow) {
                    throw fault(
                            HeaderFault.LENGTH_OVERFLOW,
                            in.position(),
                            "Read chunk at position " + chunk.position()
                                    + ": segment lengths add up to more than 2^31-1");
                }
            }
        }

        private List<WriteChunk> writeList() throws RpcRdmaHeaderException {
            List<WriteChunk> writes = new ArrayList<>();
            while (in.getBoolean()) {
                if (writes.size() == limits.maxWriteChunks()) {
                    throw fault(
                            HeaderFault.TOO_MANY_WRITE_CHUNKS,
                            in.position(),
                            "more than " + limits.maxWriteChunks() + " Write chunks");
                }
                writes.add(writeChunk("Write chunk " + writes.size()));
            }
            return writes;
        }

        private WriteChunk writeChunk(String which) throws RpcRdmaHeaderException {
            long countAt = in.position();
            long count = in.getUnsignedInt(which + " segment count");
            if (count == 0) {
                throw fault(HeaderFault.EMPTY_CHUNK, countAt, which + " declares no segment");
            }
            if (count > limits.maxSegmentsPerChunk()) {
                throw fault(
                        HeaderFault.TOO_MANY_SEGMENTS,
                        countAt,
                        which + " declares " + count + " segments, at most " + limits.maxSegmentsPerChunk());
            }
            if (count * RdmaSegment.XDR_SIZE > in.remaining()) {
                throw fault(
                        HeaderFault.TRUNCATED,
                        countAt,
                        which + " declares " + count + " segments, " + in.remaining() + " bytes left");
            }
            List<RdmaSegment> segments = new ArrayList<>((int) count);
            int total = 0;
            for (int i = 0; i < count; i++) {
                long segmentAt = in.position();
                RdmaSegment segment = segment();
                try {
                    total = Math.addExact(total, segment.length());
                } catch (ArithmeticException overflow) {
                    throw fault(
                            HeaderFault.LENGTH_OVERFLOW,
                            segmentAt,
                            which + ": segment lengths add up to more than 2^31-1");
                }
                segments.add(segment);
            }
            return new WriteChunk(segments);
        }

        private RdmaSegment segment() throws RpcRdmaHeaderException {
            int handle = in.getInt("segment handle");
            long lengthAt = in.position();
            long length = in.getUnsignedInt("segment length");
            if (length > limits.maxSegmentLength()) {
                throw fault(
                        HeaderFault.SEGMENT_TOO_LONG,
                        lengthAt,
                        "segment of " + length + " bytes, at most " + limits.maxSegmentLength());
            }
            long offset = in.getHyper();
            return new RdmaSegment(handle, (int) length, offset);
        }
    }
}
