package org.panamardma.rpcrdma;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A transport header that was refused, with the {@link HeaderFault} that says why, the offset in the message where
 * it was found, and what of the header could be read (the XID, whether the version was recognized) so that a
 * responder can answer it.
 *
 * <p>Checked, unlike {@link org.panamardma.xdr.XdrException}: a receive path must decide, for every message, whether
 * to answer ERR_VERS or ERR_CHUNK or to drop it, and the compiler should see that it does.
 */
public final class RpcRdmaHeaderException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the header. */
    private final HeaderFault fault;
    /** Where in the message the fault was found. */
    private final long offset;
    /** Whether the XID was read before the fault. */
    private final boolean xidKnown;
    /** The XID, if {@link #xidKnown}. */
    private final int xid;
    /** Whether the header's version was 1. */
    private final boolean versionRecognized;

    RpcRdmaHeaderException(
            HeaderFault fault, long offset, boolean xidKnown, int xid, boolean versionRecognized, String detail) {
        super(fault + ": " + detail + " (at offset " + offset + ")");
        this.fault = Objects.requireNonNull(fault, "fault");
        this.offset = offset;
        this.xidKnown = xidKnown;
        this.xid = xid;
        this.versionRecognized = versionRecognized;
    }

    /** {@return why the header was refused} */
    public HeaderFault fault() {
        return fault;
    }

    /** {@return the offset in the message of the item at fault, or -1 for faults found by}
     *         {@link ReadListPositions#validate} after decoding */
    public long offset() {
        return offset;
    }

    /** {@return the header's XID, if the message was long enough to hold it} */
    public OptionalInt xid() {
        return xidKnown ? OptionalInt.of(xid) : OptionalInt.empty();
    }

    /** {@return whether the header's version was read and is 1} */
    public boolean versionRecognized() {
        return versionRecognized;
    }

    /**
     * The RDMA_ERROR a responder (server) sends for this fault (RFC 8166 sections 4.5.1 and 4.5.2): ERR_VERS with
     * the supported range 1..1 for a version mismatch, ERR_CHUNK for a fault after a recognized version, nothing
     * when the version could not be read (the message is dropped). A requester (client) drops every faulty message
     * and never answers (RFC 8166 section 4.5.2).
     *
     * @param credits the credit value to grant in the error message
     * @return the header to send, or empty to drop the message
     */
    public Optional<RdmaError> responderReply(int credits) {
        if (fault == HeaderFault.VERSION_MISMATCH) {
            return Optional.of(
                    new RdmaError.VersionMismatch(xid, credits, RpcRdmaHeader.VERSION, RpcRdmaHeader.VERSION));
        }
        return versionRecognized ? Optional.of(new RdmaError.ChunkError(xid, credits)) : Optional.empty();
    }
}
