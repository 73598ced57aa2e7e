package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.function.Consumer;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * Two RC queue pairs connected by hand across the testbed wire: {@code a} on the test device (rxe0), {@code b} on
 * its peer (rxe1), each with its own context, PD and CQ, endpoints exchanged in-process.
 */
final class RcPair implements AutoCloseable {
    static final long POLL_TIMEOUT_MILLIS = 20_000;

    final Context ctxA;
    final Context ctxB;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final QueuePair a;
    final QueuePair b;
    final WorkCompletions wc = WorkCompletions.allocate(16);

    private RcPair(Context ctxA, Context ctxB, Consumer<QueuePairBuilder> customize, ConnectOptions options)
            throws RdmaException {
        this.ctxA = ctxA;
        this.ctxB = ctxB;
        pdA = ctxA.allocateProtectionDomain();
        pdB = ctxB.allocateProtectionDomain();
        cqA = ctxA.createCompletionQueue(64);
        cqB = ctxB.createCompletionQueue(64);
        QueuePairBuilder ba = pdA.queuePair().completionQueue(cqA);
        QueuePairBuilder bb = pdB.queuePair().completionQueue(cqB);
        customize.accept(ba);
        customize.accept(bb);
        PreparedQueuePair pa = ba.prepare();
        PreparedQueuePair pb = bb.prepare();
        a = pa.connect(pb.endpoint(), options);
        b = pb.connect(pa.endpoint(), options);
    }

    static RcPair open(RdmaTestDevice device) throws RdmaException {
        return open(device, q -> {}, ConnectOptions.DEFAULTS);
    }

    static RcPair open(RdmaTestDevice device, Consumer<QueuePairBuilder> customize, ConnectOptions options)
            throws RdmaException {
        String peer = device.peerName().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        Context ctxA = Context.open(device.name());
        Context ctxB;
        try {
            ctxB = Context.open(peer);
        } catch (RdmaException | RuntimeException e) {
            ctxA.close();
            throw e;
        }
        try {
            return new RcPair(ctxA, ctxB, customize, options);
        } catch (RdmaException | RuntimeException e) {
            ctxA.close();
            ctxB.close();
            throw e;
        }
    }

    /** Polls {@code cq} until one completion arrives; returns its index in {@link #wc}. Fails after a deadline. */
    int pollOne(CompletionQueue cq) throws RdmaException {
        long deadline = System.currentTimeMillis() + POLL_TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            int n = cq.poll(wc);
            if (n > 1) {
                fail("expected one completion, got " + n);
            }
            if (n == 1) {
                return 0;
            }
            Thread.onSpinWait();
        }
        return fail("no completion on " + cq + " within " + POLL_TIMEOUT_MILLIS + " ms");
    }

    /** Polls one completion and asserts it succeeded with the given wrId and opcode. */
    void expectSuccess(CompletionQueue cq, long wrId, WcOpcode opcode) throws RdmaException {
        int i = pollOne(cq);
        wc.check(i);
        assertEquals(wrId, wc.wrId(i), "wr_id");
        assertEquals(opcode, wc.opcode(i), "opcode");
    }

    /** Polls one completion and asserts it failed with {@code status}. */
    void expectFailure(CompletionQueue cq, long wrId, WcStatus status) throws RdmaException {
        int i = pollOne(cq);
        assertTrue(!wc.isSuccess(i), "expected a failed completion, got success");
        assertEquals(status, wc.status(i), "status");
        assertEquals(wrId, wc.wrId(i), "wr_id");
    }

    @Override
    public void close() {
        wc.close();
        ctxA.close();
        ctxB.close();
    }
}
