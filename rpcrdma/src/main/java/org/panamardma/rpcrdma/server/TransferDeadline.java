package org.panamardma.rpcrdma.server;

import java.time.Duration;

/**
 * How long the RDMA Reads or Writes of one chunk may take: a base, plus a second per MiB they move (a floor of
 * 1 MiB/s, twenty times below Soft-RoCE's throughput on the emulated testbed). A client whose device never completes
 * them (it offered a read credit it does not honour, or it vanished) loses the call's memory after that, not after
 * the connection's general timeout; a large chunk on a slow link still has the time it needs. When it runs out the
 * connection is closed (RFC 8166 section 3.4.3: an RDMA error is fatal to the connection).
 *
 * @param base the time any transfer is given (5 s by default)
 */
record TransferDeadline(Duration base) {
    /** The rate below which a transfer is taken for stalled. */
    static final long FLOOR_BYTES_PER_SECOND = 1 << 20;

    TransferDeadline {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("transfer timeout must be positive: " + base);
        }
    }

    /** {@return the milliseconds a transfer of {@code bytes} may take} */
    long millisFor(long bytes) {
        return base.toMillis() + bytes * 1000 / FLOOR_BYTES_PER_SECOND;
    }
}
