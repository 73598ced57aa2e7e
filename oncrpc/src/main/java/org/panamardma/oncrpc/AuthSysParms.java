package org.panamardma.oncrpc;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * The body of an AUTH_SYS credential: {@code authsys_parms} of RFC 5531 section 10.2 (appendix A).
 *
 * <p>{@code uid}, {@code gid} and the group ids are XDR {@code unsigned int}s held as their 32 bits; read them with
 * {@link Integer#toUnsignedLong} where the sign matters.
 *
 * @param stamp an arbitrary id the caller machine may generate
 * @param machineName the caller's host name, at most {@value #MAX_MACHINE_NAME} bytes
 * @param uid the caller's effective user id
 * @param gid the caller's effective group id
 * @param gids the caller's supplementary groups, at most {@value #MAX_GIDS}
 */
public record AuthSysParms(int stamp, String machineName, int uid, int gid, List<Integer> gids) {
    /** RFC 5531: {@code string machinename<255>}. */
    public static final int MAX_MACHINE_NAME = 255;
    /** RFC 5531: {@code unsigned int gids<16>}. */
    public static final int MAX_GIDS = 16;

    /**
     * Copies {@code gids} and checks the RFC 5531 section 10.2 bounds, so that every instance encodes.
     *
     * @throws IllegalArgumentException if a field breaks its RFC 5531 maximum
     */
    public AuthSysParms {
        gids = List.copyOf(gids);
        if (gids.size() > MAX_GIDS) {
            throw new IllegalArgumentException(gids.size() + " gids exceed " + MAX_GIDS);
        }
        if (machineName.getBytes(StandardCharsets.UTF_8).length > MAX_MACHINE_NAME) {
            throw new IllegalArgumentException("machine name longer than " + MAX_MACHINE_NAME + " bytes");
        }
    }

    /** {@return this as an AUTH_SYS {@link OpaqueAuth}} */
    public OpaqueAuth toOpaqueAuth() {
        byte[] body = new byte[xdrSize()];
        encodeTo(new XdrEncoder(MemorySegment.ofArray(body)));
        return new OpaqueAuth(AuthFlavor.AUTH_SYS, body);
    }

    /** {@return the encoded size of the body} */
    public int xdrSize() {
        return (int) (Xdr.INT_SIZE
                + Xdr.stringSize(machineName)
                + 2 * Xdr.INT_SIZE
                + Xdr.arraySize(gids.size(), Xdr.INT_SIZE));
    }

    /**
     * Encodes this as {@code authsys_parms}.
     *
     * @param out where to encode; {@link #xdrSize()} bytes are written
     */
    public void encodeTo(XdrEncoder out) {
        out.putInt(stamp)
                .putString(machineName, MAX_MACHINE_NAME)
                .putInt(uid)
                .putInt(gid)
                .putArray(gids, MAX_GIDS, XdrEncoder::putInt);
    }

    /**
     * Decodes {@code authsys_parms}.
     *
     * @param in positioned at the body
     * @return the parameters
     * @throws XdrException if truncated, or the machine name or group list exceeds its RFC 5531 maximum
     */
    public static AuthSysParms decode(XdrDecoder in) {
        int stamp = in.getInt("stamp");
        String machineName = in.getString(MAX_MACHINE_NAME);
        int uid = in.getInt("uid");
        int gid = in.getInt("gid");
        List<Integer> gids = in.getArray(MAX_GIDS, XdrDecoder::getInt);
        return new AuthSysParms(stamp, machineName, uid, gid, gids);
    }

    /**
     * Reads the AUTH_SYS parameters out of a credential.
     *
     * @param credential an AUTH_SYS credential
     * @return the parameters
     * @throws XdrException {@link XdrException.Reason#INVALID_VALUE} if the credential is not AUTH_SYS or its body
     *                      holds bytes after the parameters; other reasons if the body is malformed
     */
    public static AuthSysParms from(OpaqueAuth credential) {
        if (credential.flavor() != AuthFlavor.AUTH_SYS) {
            throw new XdrException(
                    XdrException.Reason.INVALID_VALUE,
                    0,
                    "credential flavor " + credential.flavor() + " is not AUTH_SYS");
        }
        XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(credential.body()));
        AuthSysParms parms = decode(in);
        if (!in.atEnd()) {
            throw new XdrException(
                    XdrException.Reason.INVALID_VALUE,
                    in.position(),
                    in.remaining() + " bytes after authsys_parms in the credential body");
        }
        return parms;
    }
}
