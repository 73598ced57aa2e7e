package org.panamardma.nfs;

import java.time.Instant;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * {@code nfstime3} (RFC 1813 section 2.6): seconds and nanoseconds since 1970-01-01 UTC, both unsigned 32-bit.
 *
 * @param seconds unsigned seconds
 * @param nanoseconds 0 to 999,999,999
 */
public record NfsTime3(long seconds, long nanoseconds) {
    /**
     * Encodes this as {@code nfstime3}.
     *
     * @param out where to encode
     * @throws org.panamardma.xdr.XdrException if a field is outside 0 to 2<sup>32</sup>-1
     */
    public void encodeTo(XdrEncoder out) {
        out.putUnsignedInt(seconds).putUnsignedInt(nanoseconds);
    }

    /**
     * Decodes {@code nfstime3}.
     *
     * @param in positioned at the time
     * @return the time
     */
    public static NfsTime3 decode(XdrDecoder in) {
        return new NfsTime3(in.getUnsignedInt("nfstime3.seconds"), in.getUnsignedInt("nfstime3.nseconds"));
    }

    /** {@return this time as an {@link Instant}} */
    public Instant toInstant() {
        return Instant.ofEpochSecond(seconds, nanoseconds);
    }
}
