package org.panamardma.verbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import org.panamardma.verbs.ffi.rdma_cma_h;
import org.panamardma.verbs.ffi.rdma_conn_param;

/**
 * What {@link CmId#connect} and {@link CmId#accept} send ({@code struct rdma_conn_param}), and what CM events carry
 * back from the peer.
 *
 * <p>On InfiniBand and RoCE the retry counts apply to the <em>peer's</em> queue pair: the {@code rnrRetryCount} a
 * client gives to connect is the server QP's, and the client QP gets what the server gives to accept (the IB CM
 * REQ/REP carry them across). {@code retryCount} is ignored by accept, and iWARP ignores both (TCP retransmits).
 *
 * @param responderResources RDMA READs and atomics the peer may have outstanding at us;
 *                           {@link #DEVICE_MAXIMUM} (255, {@code RDMA_MAX_RESP_RES}): as many as the device allows
 *                           (on accept: also no more than the peer's initiator depth)
 * @param initiatorDepth     RDMA READs and atomics we may have outstanding at the peer; {@link #DEVICE_MAXIMUM}
 *                           ({@code RDMA_MAX_INIT_DEPTH}): as many as the device allows (on accept: also no more
 *                           than the peer's responder resources)
 * @param retryCount         transport retries before a send fails with RETRY_EXC_ERR (0-7)
 * @param rnrRetryCount      retries when the receiver has no receive posted (0-7, 7: forever)
 * @param privateData        bytes for the peer's CONNECT_REQUEST / ESTABLISHED event: at most 255 here
 *                           ({@code private_data_len} is a {@code uint8_t}), and at most
 *                           {@link PrivateDataLimits} for the transport when sent
 */
public record ConnectionParameters(
        int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount, byte[] privateData) {
    /** "As many as the device can": {@code RDMA_MAX_RESP_RES} / {@code RDMA_MAX_INIT_DEPTH}. */
    public static final int DEVICE_MAXIMUM = rdma_cma_h.RDMA_MAX_RESP_RES;

    /** The device's maximum of READ/atomic resources both ways, 7 retries each, no private data. */
    public static final ConnectionParameters DEFAULTS =
            new ConnectionParameters(DEVICE_MAXIMUM, DEVICE_MAXIMUM, 7, 7, new byte[0]);

    /** Parameters; refuses values outside their fields (0..255 resources, 0..7 retries) and too much private data. */
    public ConnectionParameters {
        check("responderResources", responderResources, 0, 255);
        check("initiatorDepth", initiatorDepth, 0, 255);
        check("retryCount", retryCount, 0, 7);
        check("rnrRetryCount", rnrRetryCount, 0, 7);
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > PrivateDataLimits.LIBRDMACM_MAX) {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes: rdma_cm carries at "
                    + "most " + PrivateDataLimits.LIBRDMACM_MAX + " (private_data_len is a uint8_t)");
        }
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ": " + value);
        }
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@return the private data's length in bytes, without copying it} */
    public int privateDataLength() {
        return privateData.length;
    }

    byte[] privateDataUnsafe() {
        return privateData;
    }

    /** These parameters as the {@code struct rdma_conn_param} of rdma_connect/rdma_accept, allocated in {@code arena}. */
    MemorySegment toConnParam(Arena arena) {
        MemorySegment param = arena.allocate(rdma_conn_param.layout());
        param.set(ADDRESS, rdma_conn_param.private_data$OFFSET, nativeCopy(arena, privateData));
        param.set(JAVA_BYTE, rdma_conn_param.private_data_len$OFFSET, (byte) privateData.length);
        param.set(JAVA_BYTE, rdma_conn_param.responder_resources$OFFSET, (byte) responderResources);
        param.set(JAVA_BYTE, rdma_conn_param.initiator_depth$OFFSET, (byte) initiatorDepth);
        param.set(JAVA_BYTE, rdma_conn_param.retry_count$OFFSET, (byte) retryCount);
        param.set(JAVA_BYTE, rdma_conn_param.rnr_retry_count$OFFSET, (byte) rnrRetryCount);
        return param;
    }

    /** {@code data} copied into {@code arena} for librdmacm to read, or NULL when empty (its "no private data"). */
    static MemorySegment nativeCopy(Arena arena, byte[] data) {
        if (data.length == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment copy = arena.allocate(data.length);
        MemorySegment.copy(data, 0, copy, JAVA_BYTE, 0, data.length);
        return copy;
    }

    /**
     * These parameters with {@code data} (copied) as the private data.
     *
     * @param data the private data, 0 to {@link PrivateDataLimits#LIBRDMACM_MAX} bytes (the transport may allow fewer:
     *             checked at connect, accept and reject)
     * @return a new instance; this one is unchanged
     */
    public ConnectionParameters withPrivateData(byte[] data) {
        return new ConnectionParameters(responderResources, initiatorDepth, retryCount, rnrRetryCount, data);
    }

    /**
     * These parameters with the RDMA Read and atomic resources given.
     *
     * @param responderResources RDMA READs and atomics the peer may have outstanding at us, 0 to 255
     * @param initiatorDepth     RDMA READs and atomics we may have outstanding at the peer, 0 to 255
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if a value is out of range
     */
    public ConnectionParameters withResources(int responderResources, int initiatorDepth) {
        return new ConnectionParameters(responderResources, initiatorDepth, retryCount, rnrRetryCount, privateData);
    }

    /**
     * These parameters with the transport and RNR retry counts given (7: RNR retries without limit).
     *
     * @param retryCount    transport retries before RETRY_EXC_ERR, 0 to 7
     * @param rnrRetryCount retries when the peer has no receive posted, 0 to 7
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if a value is out of range
     */
    public ConnectionParameters withRetries(int retryCount, int rnrRetryCount) {
        return new ConnectionParameters(responderResources, initiatorDepth, retryCount, rnrRetryCount, privateData);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionParameters p
                && p.responderResources == responderResources
                && p.initiatorDepth == initiatorDepth
                && p.retryCount == retryCount
                && p.rnrRetryCount == rnrRetryCount
                && Arrays.equals(p.privateData, privateData);
    }

    @Override
    public int hashCode() {
        return ((responderResources * 31 + initiatorDepth) * 31 + retryCount) * 31
                + rnrRetryCount
                + 17 * Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "ConnectionParameters[responderResources=" + responderResources + ", initiatorDepth=" + initiatorDepth
                + ", retryCount=" + retryCount + ", rnrRetryCount=" + rnrRetryCount + ", privateData="
                + privateData.length + " bytes"
                + (privateData.length == 0
                        ? ""
                        : " "
                                + HexFormat.of().formatHex(privateData, 0, Math.min(16, privateData.length))
                                + (privateData.length > 16 ? "..." : ""))
                + "]";
    }
}
