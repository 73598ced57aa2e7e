package org.panamardma.verbs.connection.agent;

import org.panamardma.verbs.WcStatus;

/**
 * Why an agent ended a connection: the Terminate Control of RFC 5040 section 4.8 (Layer, Error Type, Error Code,
 * with the codes of its section 7.2 and RFC 5041 section 7.2), as the RFC 7306 agent sends it in its Terminate
 * message and the peer's agent decodes it. Only the errors the agent can detect are listed; a received combination
 * that is none of them decodes as {@link #UNSPECIFIED}.
 *
 * <p>{@link #status()} is the {@code ibv_wc_status} a requester sees for the same fault on a device that executes
 * the operation itself (rxe: a bad rkey or missing rights complete the atomic with {@code IBV_WC_REM_ACCESS_ERR}),
 * so that code written against the device's errors reads the agent's the same way.
 */
public enum TerminateError {
    /** RDMAP, Remote Protection Error, Invalid STag: no region of the responder's has that STag (rkey). */
    INVALID_STAG(Layer.RDMAP, 1, 0x00, "Remote Protection Error: Invalid STag", WcStatus.REM_ACCESS_ERR),
    /** RDMAP, Remote Protection Error, Base or bounds violation: the 8 bytes are not all inside the region. */
    BASE_OR_BOUNDS(Layer.RDMAP, 1, 0x01, "Remote Protection Error: Base or bounds violation", WcStatus.REM_ACCESS_ERR),
    /** RDMAP, Remote Protection Error, Access rights violation: the region does not grant remote atomics. */
    ACCESS_RIGHTS(Layer.RDMAP, 1, 0x02, "Remote Protection Error: Access rights violation", WcStatus.REM_ACCESS_ERR),
    /** RDMAP, Remote Operation Error, Invalid RDMAP version: the control byte's RV is not 01b. */
    INVALID_VERSION(Layer.RDMAP, 2, 0x05, "Remote Operation Error: Invalid RDMAP version", WcStatus.REM_OP_ERR),
    /**
     * RDMAP, Remote Operation Error, Unexpected OpCode: an opcode the agent does not take, or an Atomic Operation
     * Code it does not implement (RFC 7306 sections 1.1 and 5.2.1, semantics 4).
     */
    UNEXPECTED_OPCODE(Layer.RDMAP, 2, 0x06, "Remote Operation Error: Unexpected OpCode", WcStatus.REM_INV_REQ_ERR),
    /**
     * RDMAP, Remote Operation Error, Catastrophic error localized to RDMAP Stream: RFC 7306 section 8.2's error for
     * an atomic at an address that is not 64-bit aligned; also a message of the wrong length for its opcode.
     */
    CATASTROPHIC_STREAM(
            Layer.RDMAP,
            2,
            0x07,
            "Remote Operation Error: Catastrophic error, localized to RDMAP Stream",
            WcStatus.REM_OP_ERR),
    /** RDMAP, Local Catastrophic Error: the responder could not execute (its memory went away under the region). */
    LOCAL_CATASTROPHIC(Layer.RDMAP, 0, 0x00, "Local Catastrophic Error", WcStatus.REM_OP_ERR),
    /**
     * DDP, Untagged Buffer Error, Invalid MSN - no buffer available: more Atomic Requests outstanding than the
     * responder's IRD (they use the RDMA Read Request queue's resources, RFC 7306 section 5.2).
     */
    NO_BUFFER(
            Layer.DDP,
            2,
            0x02,
            "Untagged Buffer Error: Invalid MSN - no buffer available (IRD exceeded)",
            WcStatus.REM_INV_REQ_ERR),
    /**
     * DDP, Untagged Buffer Error, Invalid MSN - MSN range is not valid: a Request Identifier out of sequence at the
     * responder, or a Response for no outstanding request at the requester (RFC 7306 section 5.2.2, semantics 7).
     */
    MSN_RANGE(
            Layer.DDP,
            2,
            0x03,
            "Untagged Buffer Error: Invalid MSN - MSN range is not valid",
            WcStatus.REM_INV_REQ_ERR),
    /** RDMAP, Remote Operation Error, Unspecified Error: any other Terminate Control received. */
    UNSPECIFIED(Layer.RDMAP, 2, 0xff, "Remote Operation Error: Unspecified Error", WcStatus.REM_OP_ERR);

    /** The Terminate Control's Layer field (RFC 5040 section 4.8). */
    public enum Layer {
        /** The RDMA protocol (RDMAP, RFC 5040). */
        RDMAP(0),
        /** Direct data placement (DDP, RFC 5041). */
        DDP(1),
        /** The lower layer protocol (MPA over TCP). */
        LLP(2);

        final int value;

        Layer(int value) {
            this.value = value;
        }
    }

    private final Layer layer;
    private final int errorType;
    private final int errorCode;
    private final String description;
    private final WcStatus status;

    TerminateError(Layer layer, int errorType, int errorCode, String description, WcStatus status) {
        this.layer = layer;
        this.errorType = errorType;
        this.errorCode = errorCode;
        this.description = description;
        this.status = status;
    }

    /** {@return the layer that reported the error (RFC 5040 section 8.1)} */
    public Layer layer() {
        return layer;
    }

    /**
     * {@return the EType: for RDMAP 0 local catastrophic, 1 remote protection, 2 remote operation; for DDP 2 untagged
     * buffer}
     */
    public int errorType() {
        return errorType;
    }

    /** {@return the error code within the layer and type} */
    public int errorCode() {
        return errorCode;
    }

    /** {@return the RFC's name of the error} */
    public String description() {
        return description;
    }

    /** {@return the completion status a device that executes the operation itself would report for it} */
    public WcStatus status() {
        return status;
    }

    /** The first 16 bits of the Terminate Control: Layer (4 bits), EType (4 bits), Error Code (8 bits). */
    int control() {
        return layer.value << 12 | errorType << 8 | errorCode;
    }

    /** The error of a received Terminate Control's first 16 bits; {@link #UNSPECIFIED} if it is none of these. */
    static TerminateError of(int control) {
        for (TerminateError e : values()) {
            if (e.control() == (control & 0xffff)) {
                return e;
            }
        }
        return UNSPECIFIED;
    }

    @Override
    public String toString() {
        return layer + " " + description;
    }
}
