package org.panamardma.verbs.connection;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.MemoryWindow;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.ScatterGatherList;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.connection.RdmaConnection.ChainedWrite;
import org.panamardma.verbs.connection.SendQueue.Kind;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.ConnectionAgent;
import org.panamardma.verbs.extensions.RemoteWord;

/**
 * The requests of an {@link RdmaConnection} (its public methods say what each does) as posts on its
 * {@link SendQueue}: by the device, or through the RFC 7306 agent where it is active and provides the operation
 * (atomics, immediate data), which frames a SEND with its header. An operation only the agent could provide, on a
 * connection where it is not active, is refused before anything is posted.
 */
final class Requests {
    private final String name;
    private final QueuePair qp;
    /** The device's: which payloads must be signaled for their memory to be free at their completion. */
    private final Context context;

    private final ConnectionOptions options;
    private final MemoryRegion atomicResults;
    private final SendQueue sends;
    /** The RFC 7306 agent where both ends run it, else null. */
    private final ConnectionAgent agent;

    private final BooleanSupplier onPollerThread;
    /** The header and payload of a SEND the agent frames: used under the send queue's post order only. */
    private final ScatterGatherList framed;

    Requests(
            String name,
            ConnectionResources res,
            SendQueue sends,
            ConnectionAgent agent,
            BooleanSupplier onPollerThread) {
        this.name = name;
        this.qp = res.qp;
        this.context = res.qp.protectionDomain().context();
        this.options = res.options;
        this.atomicResults = res.atomicResults;
        this.sends = sends;
        this.agent = agent;
        this.onPollerThread = onPollerThread;
        this.framed = agent != null ? new ScatterGatherList(2) : null;
    }

    CompletableFuture<Void> send(MemoryRegion mr, long offset, int length) {
        // a SEND may go unsignaled (Kind.SEND) unless the device would send its payload from its memory after the
        // completion that gives that memory back (siw's zero copy: Context.mustSignalToReuse, which counts the whole
        // message, the agent's header included)
        int wire = agent != null ? ConnectionAgent.SEND_HEADER + length : length;
        Kind kind = context.mustSignalToReuse(wire) ? Kind.VOID : Kind.SEND;
        if (agent != null) {
            return sends.submit(
                    kind,
                    (wr, slot, flags) -> postFramed(
                            wr, agent.sendHeaderOffset(), ConnectionAgent.SEND_HEADER, mr, offset, length, flags));
        }
        return sends.submit(kind, (wr, slot, flags) -> qp.postSend(wr, mr, offset, length, flags));
    }

    CompletableFuture<Void> sendWithImmediate(MemoryRegion mr, long offset, int length, int immediate) {
        if (agent != null) {
            return sends.submit(
                    Kind.FRAMED,
                    (wr, slot, flags) -> postFramed(
                            wr,
                            agent.appSlotOffset(slot),
                            agent.sendWithImmediateHeader(slot, immediate),
                            mr,
                            offset,
                            length,
                            SendFlags.SIGNALED));
        }
        if (!qp.supportsImmediateData() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("immediate data"));
        }
        return sends.submit(
                Kind.VOID,
                (wr, slot, flags) -> qp.postSendWithImmediate(wr, mr, offset, length, immediate, SendFlags.SIGNALED));
    }

    CompletableFuture<Void> writesThenSend(List<ChainedWrite> writes, MemoryRegion mr, long offset, int length) {
        if (writes.isEmpty()) {
            return send(mr, offset, length);
        }
        ChainOutcome outcome = new ChainOutcome(writes.size() + 1);
        if (onPollerThread.getAsBoolean() || agent != null) {
            // the poller must not wait for permits: every request goes through the ordered deferred queue
            for (ChainedWrite w : writes) {
                outcome.track(write(w.mr(), w.offset(), w.length(), w.remoteAddress(), w.rkey()));
            }
            outcome.track(send(mr, offset, length));
            return outcome.future;
        }
        if (sends.postChain(outcome, writes, mr, offset, length)) {
            return outcome.future;
        }
        // every part was full: the SEND goes alone
        outcome.track(send(mr, offset, length));
        return outcome.future;
    }

    CompletableFuture<Void> writeWithImmediate(
            MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int immediate) {
        if (agent != null) {
            return sends.submit(Kind.FRAMED, (wr, slot, flags) -> {
                // the WRITE unsignaled under the same wr_id: an error completion of it fails this request (and
                // marks the connection failed); the Immediate Data message's completion completes it. Where the device
                // would send its payload from its memory after that completion (siw's zero copy:
                // Context.mustSignalToReuse), it is signaled under a wr_id no request has, its completion ignored
                // unless in error (which then marks the connection failed, and the message is flushed)
                if (context.mustSignalToReuse(length)) {
                    qp.postWrite(
                            SendQueue.UNTRACKED_WR_ID, mr, offset, length, remoteAddress, rkey, SendFlags.SIGNALED);
                } else {
                    qp.postWrite(wr, mr, offset, length, remoteAddress, rkey, 0);
                }
                int n = agent.immediateData(slot, immediate);
                qp.postSend(wr, agent.slotMemory(), agent.appSlotOffset(slot), n, SendFlags.SIGNALED);
            });
        }
        if (!qp.supportsImmediateData() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("immediate data"));
        }
        return sends.submit(
                Kind.VOID,
                (wr, slot, flags) -> qp.postWriteWithImmediate(
                        wr, mr, offset, length, remoteAddress, rkey, immediate, SendFlags.SIGNALED));
    }

    /** Posts the agent's header at {@code headerOffset} of its memory and the application's bytes as one SEND. */
    private void postFramed(
            long wrId, long headerOffset, int headerLength, MemoryRegion mr, long offset, int length, int flags)
            throws RdmaException {
        framed.clear().add(agent.slotMemory(), headerOffset, headerLength);
        if (length > 0) {
            framed.add(mr, offset, length);
        }
        qp.postSend(wrId, framed, flags);
    }

    /** The refusal of an operation only the agent could provide here, before anything is posted. */
    private UnsupportedOperationException agentNotActive(String what) {
        return new UnsupportedOperationException(qp.deviceName() + " has no " + what + " ("
                + (what.equals("atomics")
                        ? "atomic_cap "
                                + qp.protectionDomain().context().attributes().atomicCapability()
                        : "iWARP's RDMAP has none")
                + ") and the RFC 7306 agent is not active on " + name
                + ": the peer did not offer it in the private data (enable ConnectionOptions.withAgent on both ends)");
    }

    CompletableFuture<Void> write(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        return sends.submit(
                Kind.VOID,
                (wr, slot, flags) -> qp.postWrite(wr, mr, offset, length, remoteAddress, rkey, SendFlags.SIGNALED));
    }

    CompletableFuture<Void> read(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        if (agent != null) {
            return agent.orderedRead(() -> sends.submit(
                    Kind.VOID,
                    (wr, slot, flags) -> qp.postRead(wr, mr, offset, length, remoteAddress, rkey, SendFlags.SIGNALED)));
        }
        return sends.submit(
                Kind.VOID,
                (wr, slot, flags) -> qp.postRead(wr, mr, offset, length, remoteAddress, rkey, SendFlags.SIGNALED));
    }

    /** A zero-length RDMA READ from the peer (key 0, address 0), answered without touching memory. */
    CompletableFuture<Void> readNothing() {
        return sends.submit(
                Kind.VOID, (wr, slot, flags) -> qp.postRead(wr, atomicResults, 0, 0, 0L, 0, SendFlags.SIGNALED));
    }

    CompletableFuture<Long> fetchAdd(long remoteAddress, int rkey, long add) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.fetchAdd(remoteAddress, rkey, add, 0L);
        }
        if (!qp.supportsAtomics() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("atomics"));
        }
        return sends.submit(
                Kind.ATOMIC,
                (wr, slot, flags) ->
                        qp.postFetchAdd(wr, atomicResults, 8L * slot, remoteAddress, rkey, add, SendFlags.SIGNALED));
    }

    CompletableFuture<Long> compareSwap(long remoteAddress, int rkey, long compare, long swap) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.compareSwap(remoteAddress, rkey, compare, -1L, swap, -1L);
        }
        if (!qp.supportsAtomics() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("atomics"));
        }
        return sends.submit(
                Kind.ATOMIC,
                (wr, slot, flags) -> qp.postCompareSwap(
                        wr, atomicResults, 8L * slot, remoteAddress, rkey, compare, swap, SendFlags.SIGNALED));
    }

    CompletableFuture<Long> maskedFetchAdd(long remoteAddress, int rkey, long add, long addMask) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.fetchAdd(remoteAddress, rkey, add, addMask);
        }
        return MaskedAtomicLoop.fetchAdd(this::compareSwap, remoteAddress, rkey, add, addMask);
    }

    CompletableFuture<Long> maskedCompareSwap(
            long remoteAddress, int rkey, long compare, long compareMask, long swap, long swapMask) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.compareSwap(remoteAddress, rkey, compare, compareMask, swap, swapMask);
        }
        return MaskedAtomicLoop.compareSwap(
                this::compareSwap, remoteAddress, rkey, compare, compareMask, swap, swapMask);
    }

    RemoteWord remoteWord(RemoteRegion word) {
        if (word.length() < 8 || (word.address() & 7) != 0) {
            throw new IllegalArgumentException("a remote word is 8 bytes at an 8-byte aligned address: " + word);
        }
        return (expected, desired) -> {
            try {
                return compareSwap(word.address(), word.rkey(), expected, desired)
                        .get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RdmaException r
                        ? r
                        : new RdmaException(name + ": CmpSwap on " + word + ": " + e.getCause());
            } catch (TimeoutException e) {
                throw new RdmaException(name + ": no answer to a CmpSwap on " + word + " within " + options.timeout());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaException(name + ": interrupted waiting for a CmpSwap on " + word);
            }
        };
    }

    CompletableFuture<Void> bindMemoryWindow(
            MemoryWindow mw, int newRkey, MemoryRegion mr, long offset, long length, Set<Access> access) {
        return sends.submit(
                Kind.VOID,
                (wr, slot, flags) ->
                        qp.postBindMemoryWindow(wr, mw, newRkey, mr, offset, length, access, SendFlags.SIGNALED));
    }

    CompletableFuture<Void> invalidate(MemoryWindow mw) {
        return sends.submit(Kind.VOID, (wr, slot, flags) -> qp.postInvalidate(wr, mw, SendFlags.SIGNALED));
    }

    CompletableFuture<Void> flush(long remoteAddress, int rkey, long length, FlushType type, FlushScope scope) {
        return sends.submit(
                Kind.VOID,
                (wr, slot, flags) -> qp.postFlush(wr, remoteAddress, rkey, length, type, scope, SendFlags.SIGNALED));
    }

    CompletableFuture<Void> atomicWrite(long remoteAddress, int rkey, long value) {
        return sends.submit(
                Kind.VOID, (wr, slot, flags) -> qp.postAtomicWrite(wr, remoteAddress, rkey, value, SendFlags.SIGNALED));
    }

    /** Frees the framing scratch, not under a post that is using it (posts see the failure and stop). */
    void close() {
        if (framed != null) {
            synchronized (sends.postOrder()) {
                framed.close();
            }
        }
    }
}
