package org.panamardma.xdr;

/**
 * Something that encodes itself as XDR: a procedure's results, a message, a structure.
 * {@link #VOID} encodes nothing (XDR {@code void}).
 */
@FunctionalInterface
public interface XdrEncodable {
    /** Encodes nothing: the XDR {@code void} result. */
    XdrEncodable VOID = out -> {};

    /**
     * Writes this value's XDR encoding at {@code out}'s position, advancing it.
     *
     * @param out where to encode
     * @throws XdrException if the encoding does not fit {@code out} or a value breaks its declared limit
     */
    void encodeTo(XdrEncoder out);
}
