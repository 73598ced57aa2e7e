package org.panamardma.verbs.connection.agent;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.verbs.Access;

/**
 * The responder half of the agent, without I/O: checks an Atomic Request as an RNIC would, executes it exactly once,
 * and says what to answer. One per connection; called on the connection's poller thread only, in the order the
 * requests were delivered (RFC 7306 section 5.4, rules 5 and 8: "processed in the order they were delivered").
 *
 * <p><b>Checks</b>, in this order, each refusing with the RFC's error and leaving memory untouched: the STag names a
 * region of the connection's protection domain ({@link TerminateError#INVALID_STAG}); the region grants remote
 * atomics ({@link TerminateError#ACCESS_RIGHTS}); the 8 bytes lie inside it ({@link TerminateError#BASE_OR_BOUNDS});
 * the address is 64-bit aligned (section 8.2: {@link TerminateError#CATASTROPHIC_STREAM}).
 *
 * <p><b>Exactly once.</b> Request Identifiers are taken in sequence (the requester numbers its requests in the
 * order it posts them, from 0, modulo 2^32). The next one executes. One of the last {@code ird} that comes again
 * with the same contents is a retransmission: it gets the original value recorded when it executed, and memory is
 * not touched again (what an InfiniBand responder does with its atomic resources, and urdma's {@code done} flag).
 * Anything else is a Request Identifier out of range ({@link TerminateError#MSN_RANGE}).
 *
 * <p><b>Bounded.</b> The requester may have at most {@code ird} requests unanswered (ORD negotiated at connect); the
 * caller passes how many of this side's responses are still in the send queue, and a request that finds
 * {@code 2 x ird} there is refused ({@link TerminateError#NO_BUFFER}, IRD exceeded): the slack of {@code ird} covers
 * responses the requester has received while their own send completions are still on their way to this side's CQ.
 * The state is {@code ird} recorded results, whatever the peer sends.
 */
final class Responder {
    private final AtomicTargets targets;
    private final int ird;
    /** The last {@code ird} executed requests and their original values, by execution count modulo ird. */
    private final AtomicRequest[] done;

    private final long[] results;
    /** The next Request Identifier to execute (32 bits). */
    private long expected;
    /**
     * How many requests have executed (so how many of {@link #done} are valid, up to ird). The counters are written
     * by the poller thread and read by {@link ConnectionAgent#statistics()} from any thread: atomic, so that they
     * stay right without relying on that single writer (one atomic add per request, beside a network round trip).
     */
    private final AtomicLong executed = new AtomicLong();

    private final AtomicLong replayed = new AtomicLong();
    private final AtomicInteger highWater = new AtomicInteger();

    Responder(AtomicTargets targets, int ird) {
        if (ird < 1) {
            throw new IllegalArgumentException("IRD " + ird);
        }
        this.targets = targets;
        this.ird = ird;
        this.done = new AtomicRequest[ird];
        this.results = new long[ird];
    }

    /** What to answer: the original value, and whether the request executed now (false: a retransmission). */
    record Answer(long originalValue, boolean executed) {}

    /**
     * Handles one delivered request.
     *
     * @param unanswered this side's responses posted and not yet completed
     * @throws AgentProtocolException the error to terminate the connection with; memory was not touched
     */
    Answer handle(AtomicRequest r, int unanswered) throws AgentProtocolException {
        long id = r.requestId();
        if (unanswered >= 2 * ird) {
            throw new AgentProtocolException(
                    TerminateError.NO_BUFFER,
                    id,
                    "Atomic Request " + id + " with " + unanswered + " responses still unanswered, IRD " + ird);
        }
        highWater.accumulateAndGet(unanswered + 1, Math::max);
        long executedSoFar = executed.get();
        if (id != expected) {
            long back = (expected - id) & 0xffff_ffffL; // how far behind the next one, modulo 2^32
            if (back >= 1 && back <= Math.min(ird, executedSoFar)) {
                int slot = (int) ((executedSoFar - back) % ird);
                if (r.equals(done[slot])) {
                    replayed.incrementAndGet();
                    return new Answer(results[slot], false);
                }
            }
            throw new AgentProtocolException(
                    TerminateError.MSN_RANGE, id, "Request Identifier " + id + " where " + expected + " was next");
        }
        AtomicTargets.Target target = targets.find(r.stag());
        if (target == null) {
            throw new AgentProtocolException(
                    TerminateError.INVALID_STAG,
                    id,
                    "STag 0x" + Integer.toHexString(r.stag()) + " is no registered region");
        }
        if (!target.access().contains(Access.REMOTE_ATOMIC)) {
            throw new AgentProtocolException(
                    TerminateError.ACCESS_RIGHTS,
                    id,
                    "the region of STag 0x" + Integer.toHexString(r.stag()) + " grants " + target.access()
                            + ", not REMOTE_ATOMIC");
        }
        long offset = r.taggedOffset() - target.address();
        // unsigned: a tagged offset below the base wraps to a huge offset
        if (Long.compareUnsigned(r.taggedOffset(), target.address()) < 0
                || target.length() < 8
                || Long.compareUnsigned(offset, target.length() - 8) > 0) {
            throw new AgentProtocolException(
                    TerminateError.BASE_OR_BOUNDS,
                    id,
                    "8 bytes at 0x"
                            + Long.toHexString(r.taggedOffset()) + " are not inside the region [0x"
                            + Long.toHexString(target.address()) + ", +" + target.length() + ")");
        }
        if ((r.taggedOffset() & 7) != 0) {
            throw new AgentProtocolException(
                    TerminateError.CATASTROPHIC_STREAM,
                    id,
                    "address 0x" + Long.toHexString(r.taggedOffset()) + " is not 64-bit aligned");
        }
        long original;
        try {
            original = target.execute(offset, r);
        } catch (IllegalStateException e) {
            // deregistered (or its memory freed) between the lookup and the execution
            throw new AgentProtocolException(
                    TerminateError.INVALID_STAG, id, "STag 0x" + Integer.toHexString(r.stag()) + ": " + e.getMessage());
        }
        int slot = (int) (executedSoFar % ird);
        done[slot] = r;
        results[slot] = original;
        executed.incrementAndGet();
        expected = (expected + 1) & 0xffff_ffffL;
        return new Answer(original, true);
    }

    long executed() {
        return executed.get();
    }

    long replayed() {
        return replayed.get();
    }

    /** The most responses this side had in its send queue at once (the one being answered included). */
    int highWater() {
        return highWater.get();
    }

    int ird() {
        return ird;
    }
}
