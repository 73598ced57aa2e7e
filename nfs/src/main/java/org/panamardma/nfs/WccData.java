package org.panamardma.nfs;

import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * {@code wcc_data}: weak cache consistency data (RFC 1813 section 2.6), the attributes before ({@code pre_op_attr})
 * and after ({@code post_op_attr}) an operation; either may be absent.
 *
 * @param before size, mtime and ctime before the operation, or {@code null}
 * @param after the attributes after it, or {@code null}
 */
public record WccData(WccAttr before, Fattr3 after) {
    /**
     * {@code wcc_attr}.
     *
     * @param size bytes
     * @param mtime last data modification
     * @param ctime last attribute change
     */
    public record WccAttr(long size, NfsTime3 mtime, NfsTime3 ctime) {
        /**
         * Encodes this as {@code wcc_attr}.
         *
         * @param out where to encode
         */
        public void encodeTo(XdrEncoder out) {
            out.putUnsignedHyper(size);
            mtime.encodeTo(out);
            ctime.encodeTo(out);
        }

        /**
         * Decodes {@code wcc_attr}.
         *
         * @param in positioned at the attributes
         * @return the attributes
         */
        public static WccAttr decode(XdrDecoder in) {
            return new WccAttr(in.getUnsignedHyper(), NfsTime3.decode(in), NfsTime3.decode(in));
        }
    }

    /**
     * Encodes this as {@code wcc_data}: each half FALSE when absent.
     *
     * @param out where to encode
     */
    public void encodeTo(XdrEncoder out) {
        out.putNullable(before, (o, b) -> b.encodeTo(o));
        Fattr3.encodePostOp(out, after);
    }

    /**
     * Decodes {@code wcc_data}.
     *
     * @param in positioned at the data
     * @return the data; either half {@code null} when the server sent none
     */
    public static WccData decode(XdrDecoder in) {
        WccAttr before = in.getBoolean() ? WccAttr.decode(in) : null;
        return new WccData(before, Fattr3.decodePostOp(in));
    }
}
