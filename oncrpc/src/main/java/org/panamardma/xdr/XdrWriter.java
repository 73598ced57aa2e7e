package org.panamardma.xdr;

/**
 * Encodes one value of type {@code T}; used for array elements and optional-data.
 *
 * @param <T> the value type
 */
@FunctionalInterface
public interface XdrWriter<T> {
    /**
     * Encodes {@code value} at {@code out}'s position, advancing it.
     *
     * @param out where to encode
     * @param value the value, never {@code null}
     */
    void write(XdrEncoder out, T value);
}
