package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiConsumer;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.trusted.Callbacks;
import org.panamardma.xdr.XdrEncoder;

/**
 * The send side of an {@link RpcRdmaClient}: encodes a call that holds a credit (its transport header and, unless it
 * travels as a Long Call, its RPC message) into a pre-registered Send buffer and posts the Send. There are twice as
 * many buffers as credits; a buffer comes back when its Send's (or a later signaled Send's) completion arrives.
 * A call that cannot be sent is handed to {@code failed} with its error, still holding its credit.
 */
final class CallSender implements AutoCloseable {
    private static final ValueLayout.OfInt BIG_ENDIAN_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final String name;
    private final RdmaConnection connection;
    private final MemoryRegion buffers;
    private final int slotSize;
    private final ConcurrentLinkedQueue<Integer> free = new ConcurrentLinkedQueue<>();
    private final BiConsumer<Call, RpcRdmaException> failed;

    /**
     * @param slotSize the send inline threshold: the largest message sent
     * @param slots how many Send buffers
     * @param failed takes a call whose Send could not be made or failed, and why
     */
    CallSender(
            String name, RdmaConnection connection, int slotSize, int slots, BiConsumer<Call, RpcRdmaException> failed)
            throws RdmaException {
        this.name = name;
        this.connection = connection;
        this.slotSize = slotSize;
        this.failed = failed;
        // no access right beyond the device reading it for the Send
        this.buffers = connection.protectionDomain().allocate((long) slots * slotSize, Set.of());
        for (int i = 0; i < slots; i++) {
            free.add(i);
        }
    }

    /** Sends {@code call}, which holds a credit; does nothing for a call that ended while being admitted. */
    void send(Call call) {
        if (call.ended) {
            return; // timed out (or failed) while being admitted: its credit is already returned, its memory revoked
        }
        Integer slot = free.poll();
        if (slot == null) { // cannot happen: twice as many slots as credits
            failed.accept(call, new RpcRdmaException(name + ": no free send buffer"));
            return;
        }
        long offset = (long) slot * slotSize;
        int length;
        try {
            length = encode(call, buffers.segment().asSlice(offset, slotSize));
        } catch (RuntimeException e) {
            free.add(slot);
            failed.accept(call, new RpcRdmaException(name + ": call " + call.xid + " does not fit the send buffer", e));
            return;
        }
        call.sent = true;
        Callbacks.whenDone(connection.send(buffers, offset, length), name, (v, t) -> {
            free.add(slot);
            if (t != null) {
                Throwable cause = t instanceof CompletionException c && c.getCause() != null ? c.getCause() : t;
                // An unsignaled Send (sendSignalInterval) has no completion of its own: when the connection ends
                // before a later signaled one, its future fails with the connection although the Send went out
                // (the server may be working on the call). Only a completion in error is the Send's own failure.
                failed.accept(
                        call,
                        cause instanceof ConnectionClosedException
                                ? Calls.lost(name, "connection lost", cause)
                                : Calls.lost(name, "send of call " + call.hexXid() + " failed", cause));
            }
        });
    }

    /** {@return the bytes of the Send: the transport header, then the RPC message unless it goes in a Read chunk} */
    private static int encode(Call call, MemorySegment buffer) {
        XdrEncoder out = new XdrEncoder(buffer);
        RpcRdmaHeaderEncoder.encode(call.header, out);
        if (call.headerPatch != null) {
            buffer.set(BIG_ENDIAN_INT, 4L * call.headerPatch[0], call.headerPatch[1]);
        }
        if (call.plan.kind() == CallPlan.Kind.POSITION_ZERO) {
            return (int) out.position();
        }
        MemorySegment.copy(
                call.plan.message(),
                0,
                buffer,
                out.position(),
                call.plan.message().byteSize());
        return (int) (out.position() + call.plan.message().byteSize());
    }

    /** Deregisters the Send buffers (after the connection stopped sending). */
    @Override
    public void close() {
        buffers.close();
    }
}
