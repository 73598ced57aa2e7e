package org.panamardma.verbs.connection.agent;

import java.util.Arrays;

/**
 * How two ends agree to run the agent: in the rdma_cm private data of the connect request and of the accept, so
 * that both know before anything is posted whether every SEND of the connection carries the agent's control word
 * (a first exchange of messages could not say so without already sending a message the peer may not understand,
 * and would cost a round trip). RFC 7306 section 1.1 leaves the negotiation to the ULP; this is ours.
 *
 * <p>Each end that offers the agent appends an 8-byte trailer to its application's private data (RFC 8797's, for
 * RPC-over-RDMA, stays at the front where its readers look):
 *
 * <pre>
 *  byte 0     version (1)
 *  byte 1     IRD: how many Atomic Requests this end executes at once for its peer (1-255)
 *  byte 2     ORD: how many it would have outstanding at its peer (1-255)
 *  byte 3     reserved, 0
 *  bytes 4-7  "7306" (0x37 0x33 0x30 0x36)
 * </pre>
 *
 * The trailer is the last 8 bytes of the private data once trailing zero bytes are dropped: InfiniBand's CM pads the
 * private data to its field's size with zeros, and the trailer's last byte is not zero. The client offers; the
 * server, if it runs the agent too, answers with its own trailer in the accept; the agent is active on the
 * connection when both trailers were seen. Each side then sends at most {@code min(its ORD, the peer's IRD)}
 * requests at once. An end without the agent ignores the trailer (its application sees it at the end of the
 * private data) and answers without one, so the agent stays off: its SENDs never carry a control word, and an
 * operation only the agent could provide is refused before anything is posted.
 */
public final class Handshake {
    private Handshake() {}

    /** The bytes the agent's offer takes at the end of the private data. */
    public static final int TRAILER_LENGTH = 8;

    static final int VERSION = 1;
    private static final byte[] MAGIC = {0x37, 0x33, 0x30, 0x36};

    /**
     * A peer's trailer.
     *
     * @param version the trailer's format version (this agent speaks 1)
     * @param ird     the requests the peer executes at once (1 to 255)
     * @param ord     the requests the peer may send at once (1 to 255)
     */
    public record Offer(int version, int ird, int ord) {}

    /**
     * Received private data taken apart.
     *
     * @param applicationData the bytes before the trailer (all of them if there is none)
     * @param offer           the peer's offer, or null if it made none this agent understands
     */
    public record Parsed(byte[] applicationData, Offer offer) {}

    /**
     * What the two ends agreed: the agent is on; this end executes up to {@code ird}, sends up to {@code ord}.
     *
     * @param ird requests this end executes at once
     * @param ord requests this end may have outstanding: {@code min(its depth, the peer's IRD)}
     */
    public record Negotiated(int ird, int ord) {}

    /**
     * {@code applicationData} followed by this end's trailer.
     *
     * @param applicationData the application's private data (the CM limits the total: 56 bytes for RC on InfiniBand)
     * @param ird             this end's depth offered, 1 to 255
     * @param ord             requests this end would send at once, 1 to 255
     * @return a new array, {@link #TRAILER_LENGTH} bytes longer
     * @throws IllegalArgumentException if {@code ird} or {@code ord} is not in 1..255
     */
    public static byte[] append(byte[] applicationData, int ird, int ord) {
        checkDepth("IRD", ird);
        checkDepth("ORD", ord);
        byte[] out = Arrays.copyOf(applicationData, applicationData.length + TRAILER_LENGTH);
        int o = applicationData.length;
        out[o] = VERSION;
        out[o + 1] = (byte) ird;
        out[o + 2] = (byte) ord;
        out[o + 3] = 0;
        System.arraycopy(MAGIC, 0, out, o + 4, MAGIC.length);
        return out;
    }

    private static void checkDepth(String what, int n) {
        if (n < 1 || n > 255) {
            throw new IllegalArgumentException(what + " " + n + " not in 1..255");
        }
    }

    /**
     * Finds a trailer at the end of {@code received} (trailing zeros dropped); takes any bytes.
     *
     * @param received the private data of a connect request or reply, as the CM delivered it (padding included)
     * @return the application's bytes and the offer, which is null when there is no trailer or one of another version
     */
    public static Parsed parse(byte[] received) {
        int end = received.length;
        while (end > 0 && received[end - 1] == 0) {
            end--;
        }
        if (end < TRAILER_LENGTH || !Arrays.equals(received, end - 4, end, MAGIC, 0, 4)) {
            return new Parsed(received.clone(), null);
        }
        int o = end - TRAILER_LENGTH;
        int version = received[o] & 0xff;
        int ird = received[o + 1] & 0xff;
        int ord = received[o + 2] & 0xff;
        byte[] application = Arrays.copyOf(received, o);
        if (version != VERSION || ird == 0 || ord == 0) {
            // a trailer of another version (or a broken one): not an offer this agent can take
            return new Parsed(application, null);
        }
        return new Parsed(application, new Offer(version, ird, ord));
    }

    /**
     * This end's terms given its own depth and the peer's offer (null: the agent stays off, null is returned).
     *
     * @param localDepth this end's agent depth
     * @param peer       the peer's offer, or null
     * @return the terms, or null if the peer made no offer
     */
    public static Negotiated negotiate(int localDepth, Offer peer) {
        if (peer == null) {
            return null;
        }
        return new Negotiated(localDepth, Math.min(localDepth, peer.ird()));
    }
}
