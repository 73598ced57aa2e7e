package org.panamardma.oncrpc.tcp;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.oncrpc.limits.RateLimitedLog;

/**
 * What a {@link TcpRpcServer}'s limits did: connections ended by each timeout, calls dropped for want of memory, and
 * the most calls in progress on one connection. Refused connections are counted by the server's admission
 * ({@link TcpRpcServer#admission()}). Every event is counted here; the log gets at most one WARN line per interval
 * for them ({@link #refusalLog()}).
 */
public final class TcpServerStatistics {
    private final Map<TcpConnection.End, LongAdder> ends = new EnumMap<>(TcpConnection.End.class);
    private final LongAdder droppedCalls = new LongAdder();
    private final AtomicInteger peakCallsInProgress = new AtomicInteger();
    private final RateLimitedLog refusalLog;

    TcpServerStatistics(RateLimitedLog refusalLog) {
        this.refusalLog = refusalLog;
        for (TcpConnection.End e : TcpConnection.End.values()) {
            ends.put(e, new LongAdder());
        }
    }

    RateLimitedLog refusalLog() {
        return refusalLog;
    }

    void ended(TcpConnection.End how) {
        ends.get(how).increment();
    }

    void droppedCall() {
        droppedCalls.increment();
    }

    void callsInProgress(int n) {
        peakCallsInProgress.accumulateAndGet(n, Math::max);
    }

    /** {@return connections closed because nothing happened on them for the idle timeout} */
    public long idleTimeouts() {
        return ends.get(TcpConnection.End.IDLE_TIMEOUT).sum();
    }

    /** {@return connections closed because a record did not arrive whole within the read timeout} */
    public long readTimeouts() {
        return ends.get(TcpConnection.End.READ_TIMEOUT).sum();
    }

    /** {@return connections closed because a reply could not be written within the write timeout} */
    public long writeTimeouts() {
        return ends.get(TcpConnection.End.WRITE_TIMEOUT).sum();
    }

    /** {@return connections closed for breaking the protocol (a record over the limit, a message not a call)} */
    public long protocolErrors() {
        return ends.get(TcpConnection.End.PROTOCOL_ERROR).sum();
    }

    /** {@return calls read and dropped, unanswered, because their memory could not be had within the wait} */
    public long droppedCalls() {
        return droppedCalls.sum();
    }

    /** {@return the most calls ever in progress at once on one connection} */
    public int peakCallsInProgress() {
        return peakCallsInProgress.get();
    }

    @Override
    public String toString() {
        return "connections ended " + ends + ", dropped calls " + droppedCalls.sum() + ", peak calls in progress "
                + peakCallsInProgress.get();
    }
}
