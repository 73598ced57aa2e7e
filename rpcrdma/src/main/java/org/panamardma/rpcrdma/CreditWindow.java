package org.panamardma.rpcrdma;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A requester's credit window (draft-ietf-nfsv4-rpcrdma-08 section 3.3; RFC 8166 section 3.3.1): never more
 * calls outstanding than the responder has granted; calls beyond the grant wait in FIFO order, they never fail.
 *
 * <p>The grant is taken from each reply's credit field ({@link #replyReceived(int)}). Before the first reply the
 * grant is 1 (RFC 8166 section 3.3.1: a requester starts with one credit). A grant of 0 is treated as 1, as Linux
 * xprtrdma does (rpcrdma_reply_handler, "don't deadlock"): with no call outstanding the requester could otherwise
 * never learn of a larger grant. The grant is also capped by our own limit ({@code maxOutstanding}: the receive
 * buffers we keep posted), since every outstanding call needs a posted receive for its reply.
 *
 * <p>Thread-safe. Calls that become sendable are handed back to the caller (never run under the lock) so that
 * posting a send happens outside this monitor.
 *
 * @param <T> the queued call
 */
public final class CreditWindow<T> {
    private final int maxOutstanding;
    private final ArrayDeque<T> waiting = new ArrayDeque<>();
    private int grant = 1;
    private int outstanding;
    private int peakOutstanding;
    private boolean closed;

    /**
     * A window granting 1 credit until the first reply.
     *
     * @param maxOutstanding our own cap on outstanding calls (at least 1)
     */
    public CreditWindow(int maxOutstanding) {
        if (maxOutstanding < 1) {
            throw new IllegalArgumentException("maxOutstanding " + maxOutstanding + " < 1");
        }
        this.maxOutstanding = maxOutstanding;
    }

    /**
     * Offers a call. If a credit is free it is taken and {@code true} is returned: the caller sends it now.
     * Otherwise it is queued and will be returned by a later {@link #replyReceived} or {@link #release}.
     *
     * @param call the call
     * @return whether it took a credit and is to be sent now
     * @throws IllegalStateException once {@link #close()}d
     */
    public synchronized boolean offer(T call) {
        if (closed) {
            throw new IllegalStateException("credit window closed");
        }
        if (waiting.isEmpty() && outstanding < effectiveGrant()) {
            take();
            return true;
        }
        waiting.add(call);
        return false;
    }

    /**
     * A reply arrived for an outstanding call: its credit is returned and the grant becomes {@code creditField}
     * (the reply header's rdma_credit). Returns the queued calls that may now be sent, in order; each has taken a
     * credit.
     *
     * @param creditField the reply's {@code rdma_credit}
     * @return the queued calls admitted now
     */
    public synchronized List<T> replyReceived(int creditField) {
        updateGrant(creditField);
        return returnCredit();
    }

    /**
     * A reply arrived that matched no outstanding call (for example one that had timed out and was already
     * {@link #release}d): only the grant is updated. Returns calls that may now be sent.
     *
     * @param creditField the reply's {@code rdma_credit}
     * @return the queued calls admitted now
     */
    public synchronized List<T> grantUpdated(int creditField) {
        updateGrant(creditField);
        return admit();
    }

    /**
     * An outstanding call ended without a reply (timeout, send failure): its credit is returned. Returns calls that
     * may now be sent.
     *
     * @return the queued calls admitted now
     */
    public synchronized List<T> release() {
        return returnCredit();
    }

    /**
     * Removes a call still waiting for a credit (for example timed out in the queue); true if it was queued.
     *
     * @param call the call
     * @return whether it was queued (and is no more)
     */
    public synchronized boolean cancelQueued(T call) {
        return waiting.remove(call);
    }

    /**
     * Stops admitting: returns every queued call (to be failed); later offers throw.
     *
     * @return the calls that were queued
     */
    public synchronized List<T> close() {
        closed = true;
        List<T> drained = new ArrayList<>(waiting);
        waiting.clear();
        return drained;
    }

    /** {@return the current grant as last received (0 already mapped to 1), before our own cap} */
    public synchronized int grant() {
        return grant;
    }

    /** {@return calls holding a credit} */
    public synchronized int outstanding() {
        return outstanding;
    }

    /** {@return the most calls that held a credit at once, since the window was made} */
    public synchronized int peakOutstanding() {
        return peakOutstanding;
    }

    private void take() {
        outstanding++;
        peakOutstanding = Math.max(peakOutstanding, outstanding);
    }

    /** {@return calls waiting for a credit} */
    public synchronized int queued() {
        return waiting.size();
    }

    private void updateGrant(int creditField) {
        // the credit field is an unsigned 32-bit value; 0 means 1 (see the class comment)
        long value = Integer.toUnsignedLong(creditField);
        grant = (int) Math.max(1, Math.min(value, Integer.MAX_VALUE));
    }

    private int effectiveGrant() {
        return Math.min(grant, maxOutstanding);
    }

    private List<T> returnCredit() {
        if (outstanding <= 0) {
            throw new IllegalStateException("credit returned with no call outstanding");
        }
        outstanding--;
        return admit();
    }

    private List<T> admit() {
        if (waiting.isEmpty() || closed) {
            return List.of();
        }
        List<T> admitted = new ArrayList<>();
        while (!waiting.isEmpty() && outstanding < effectiveGrant()) {
            take();
            admitted.add(waiting.poll());
        }
        return admitted;
    }
}
