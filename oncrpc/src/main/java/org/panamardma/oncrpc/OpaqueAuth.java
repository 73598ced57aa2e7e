package org.panamardma.oncrpc;

import java.util.Arrays;
import java.util.HexFormat;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * A credential or verifier as it travels: {@code opaque_auth} of RFC 5531 section 8.2, a flavor and an opaque
 * body of at most {@value #MAX_BODY} bytes. Typed views of a body, such as {@link AuthSysParms}, are decoded from
 * it on demand.
 *
 * <p>The body is copied in and out, so instances are immutable; bodies are at most 400 bytes.
 *
 * @param flavor the authentication flavor ({@link AuthFlavor})
 * @param body the flavor-specific body
 */
public record OpaqueAuth(int flavor, byte[] body) {
    /** The maximum body length (RFC 5531 section 8.2: {@code opaque body<400>}). */
    public static final int MAX_BODY = 400;

    /** AUTH_NONE with an empty body: the null credential and verifier. */
    public static final OpaqueAuth NONE = new OpaqueAuth(AuthFlavor.AUTH_NONE, new byte[0]);

    /**
     * Copies {@code body} so that the record stays immutable, and checks its length against RFC 5531's bound.
     *
     * @throws IllegalArgumentException if the body is longer than {@value #MAX_BODY} bytes
     */
    public OpaqueAuth {
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("opaque_auth body of " + body.length + " bytes exceeds " + MAX_BODY);
        }
        body = body.clone();
    }

    /**
     * {@return a copy of the body: the record is immutable, so changing it changes nothing here}
     */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** {@return the encoded size} */
    public int xdrSize() {
        return Xdr.INT_SIZE + (int) Xdr.opaqueSize(body.length);
    }

    /**
     * Encodes this as {@code opaque_auth}.
     *
     * @param out where to encode; {@link #xdrSize()} bytes are written
     */
    public void encodeTo(XdrEncoder out) {
        out.putEnum(flavor).putOpaque(body, MAX_BODY);
    }

    /**
     * Decodes an {@code opaque_auth}.
     *
     * @param in positioned at the flavor word
     * @return the credential or verifier, holding a copy of the body
     * @throws XdrException if truncated or the body exceeds {@value #MAX_BODY} bytes
     */
    public static OpaqueAuth decode(XdrDecoder in) {
        int flavor = in.getInt("auth flavor");
        return new OpaqueAuth(flavor, in.getOpaqueBytes(MAX_BODY));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OpaqueAuth that && flavor == that.flavor && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return 31 * flavor + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "OpaqueAuth[flavor=" + flavor + ", body=" + HexFormat.of().formatHex(body) + "]";
    }
}
