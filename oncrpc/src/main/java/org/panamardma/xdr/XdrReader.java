package org.panamardma.xdr;

/**
 * Decodes one value of type {@code T}; used for array elements, optional-data and procedure arguments.
 *
 * @param <T> the value type
 */
@FunctionalInterface
public interface XdrReader<T> {
    /**
     * Decodes one value at {@code in}'s position, advancing it past the value.
     *
     * @param in where to decode from, positioned at the value
     * @return the value, never {@code null}
     * @throws XdrException if the data is malformed or truncated
     */
    T read(XdrDecoder in);
}
