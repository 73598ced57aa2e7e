package org.panamardma.netty;

/**
 * Credit-based flow control of one direction pair, as the stream's sender and receiver see it; pure state, no I/O.
 *
 * <p>A SEND consumes one receive buffer the peer posted; sending without one is fatal on iWARP (no RNR retry) and
 * stalls RoCE. So a side sends only while it holds a <em>credit</em>: it starts with as many as the peer posted
 * receive buffers ({@code peerReceiveDepth}, from the connection's private data), spends one per frame, and gets them
 * back in the {@code credits} field of the peer's frames as the peer posts its buffers again.
 *
 * <p>Two rules keep it free of deadlock and of endless credit ping-pong:
 * <ul>
 *   <li>every frame but {@link Frame#CREDIT} needs two credits, so that the last one is kept for returning credits:
 *       two sides that each hold one credit can always tell each other what they owe;</li>
 *   <li>a {@link Frame#CREDIT} frame is sent only when at least {@link #threshold()} credits ({@code >= 2}, at most
 *       {@code receiveDepth - 1}) are owed: the one receive buffer it takes at the peer makes the peer owe one,
 *       fewer than its threshold, so credit frames do not answer each other for ever. A side starved of credits has
 *       at least {@code peerReceiveDepth - 1} frames unreturned at the peer, which therefore owes at least its
 *       threshold (unless its application stopped reading: then waiting is the backpressure wanted).</li>
 * </ul>
 */
final class CreditFlow {
    /** The fewest receive buffers a side may post: with fewer, the rules above cannot hold. */
    static final int MIN_RECEIVE_DEPTH = 4;

    private final int receiveDepth;
    private final int threshold;
    private int credits;
    private int owed;

    CreditFlow(int receiveDepth, int peerReceiveDepth) {
        if (receiveDepth < MIN_RECEIVE_DEPTH || peerReceiveDepth < MIN_RECEIVE_DEPTH) {
            throw new IllegalArgumentException("receive depths must be at least " + MIN_RECEIVE_DEPTH + ": "
                    + receiveDepth + ", " + peerReceiveDepth);
        }
        this.receiveDepth = receiveDepth;
        this.threshold = Math.max(2, receiveDepth / 2);
        this.credits = peerReceiveDepth;
    }

    /** Frames this side may still send (including the one kept for credit frames). */
    int credits() {
        return credits;
    }

    /** Receive buffers posted again and not yet announced to the peer. */
    int owed() {
        return owed;
    }

    int threshold() {
        return threshold;
    }

    /** Whether a frame other than CREDIT may be sent, keeping {@code reserve} more credits for later frames. */
    boolean canSend(int reserve) {
        return credits >= 2 + reserve;
    }

    /** Whether a CREDIT frame is due and possible. */
    boolean creditFrameDue() {
        return owed >= threshold && credits >= 1;
    }

    /** A frame is sent: spends a credit and returns what it announces (all that is owed, up to the field's limit). */
    int onSend() {
        if (credits < 1) {
            throw new IllegalStateException("send without credit");
        }
        credits--;
        int announced = Math.min(owed, Frame.MAX_CREDITS);
        owed -= announced;
        return announced;
    }

    /** Spends credits set aside by {@link #canSend(int)}'s reserve for frames sent later without a new check. */
    void reserve(int n) {
        if (credits < n) {
            throw new IllegalStateException("reserving " + n + " of " + credits + " credits");
        }
        credits -= n;
    }

    /** Gives back a reserved credit (as {@link #onSend()} would have used it). */
    int onReservedSend() {
        credits++;
        return onSend();
    }

    /**
     * The peer announced {@code n} receive buffers posted again.
     *
     * @throws IllegalStateException if that would give more credits than the peer has buffers (a peer breaking the
     *         protocol: the caller closes the connection)
     */
    void onCreditsReturned(int n, int peerReceiveDepth) {
        if ((long) credits + n > peerReceiveDepth) {
            throw new IllegalStateException("the peer returned " + n + " credits to the " + credits + " held; it has "
                    + peerReceiveDepth + " receive buffers");
        }
        credits += n;
    }

    /** A receive buffer was posted again: one more credit owed to the peer. */
    void onReposted() {
        if (owed >= receiveDepth) {
            throw new IllegalStateException("more reposts than receive buffers");
        }
        owed++;
    }
}
