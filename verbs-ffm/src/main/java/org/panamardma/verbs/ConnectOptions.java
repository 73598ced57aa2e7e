package org.panamardma.verbs;

/**
 * Parameters of an RC connection (the RTR and RTS transitions).
 *
 * @param responderResources RDMA READs and atomics the peer may have outstanding at us (max_dest_rd_atomic)
 * @param initiatorDepth     RDMA READs and atomics we may have outstanding at the peer (max_rd_atomic)
 * @param timeout            local ACK timeout exponent: 4.096 us * 2^timeout
 * @param retryCount         transport retries before RETRY_EXC_ERR (0-7)
 * @param rnrRetry           retries when the peer has no receive posted (7: forever)
 * @param minRnrTimer        how long the peer should wait before retrying when we have no receive (encoded, 0-31)
 * @param hopLimit           GRH hop limit (RoCE)
 * @param trafficClass       GRH traffic class (RoCE)
 */
public record ConnectOptions(
        int responderResources,
        int initiatorDepth,
        int timeout,
        int retryCount,
        int rnrRetry,
        int minRnrTimer,
        int hopLimit,
        int trafficClass) {
    public static final ConnectOptions DEFAULTS = new ConnectOptions(16, 16, 14, 7, 7, 12, 64, 0);

    /** Options; refuses values outside their {@code ibv_qp_attr} fields. */
    public ConnectOptions {
        check("responderResources", responderResources, 0, 255);
        check("initiatorDepth", initiatorDepth, 0, 255);
        check("timeout", timeout, 0, 31);
        check("retryCount", retryCount, 0, 7);
        check("rnrRetry", rnrRetry, 0, 7);
        check("minRnrTimer", minRnrTimer, 0, 31);
        check("hopLimit", hopLimit, 0, 255);
        check("trafficClass", trafficClass, 0, 255);
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ": " + value);
        }
    }

    /**
     * These options with {@code rnrRetry} RNR retries (7: without limit).
     *
     * @param rnrRetry 0 to 7
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code rnrRetry} is out of range
     */
    public ConnectOptions withRnrRetry(int rnrRetry) {
        return new ConnectOptions(
                responderResources, initiatorDepth, timeout, retryCount, rnrRetry, minRnrTimer, hopLimit, trafficClass);
    }

    /**
     * These options with {@code retryCount} transport retries.
     *
     * @param retryCount retries before the request fails with RETRY_EXC_ERR, 0 to 7
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code retryCount} is out of range
     */
    public ConnectOptions withRetryCount(int retryCount) {
        return new ConnectOptions(
                responderResources, initiatorDepth, timeout, retryCount, rnrRetry, minRnrTimer, hopLimit, trafficClass);
    }

    /**
     * These options with the local ACK timeout exponent {@code timeout} (4.096 us * 2^timeout; 0: infinite).
     *
     * @param timeout 0 to 31
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code timeout} is out of range
     */
    public ConnectOptions withTimeout(int timeout) {
        return new ConnectOptions(
                responderResources, initiatorDepth, timeout, retryCount, rnrRetry, minRnrTimer, hopLimit, trafficClass);
    }
}
