package org.panamardma.verbs.connection.agent;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.SendFlags;

/**
 * The RFC 7306 agent of one connection, both halves: as requester it sends Atomic Requests and Immediate Data for
 * the connection's application; as responder it executes the peer's Atomic Requests on this end's registered
 * memory and answers them. The connection layer ({@code RdmaConnection}) creates it when the handshake made the
 * agent active, frames every SEND with the control word (the package-private {@code AgentWire} has the format) and hands it every received message.
 * Not for applications: they use the connection's {@code fetchAdd}, {@code compareSwap}, masked and immediate
 * variants, which come here when the agent provides them.
 *
 * <p><b>Memory.</b> The agent sends from one registered region the connection allocates ({@link
 * #slotMemoryBytes}), in 64-byte slots: slot 0 holds the constant header of a plain Send; then one slot per
 * application send-queue slot (the header of a Send with immediate data, or an Immediate Data message); {@code
 * depth} request slots; {@code 2 x depth} response slots; one for a Terminate. The queue pair has
 * {@link #extraSendQueueDepth} more send-queue entries and {@link #extraReceives} more receive buffers than the
 * application asked for, so that the agent's messages never wait for, nor take, the application's: they are the
 * "sufficient number of Untagged Buffers" RFC 7306 section 5.2.2 (semantics 4 and 5) asks of both ends.
 *
 * <p><b>Threads.</b> Received messages are handled on the connection's poller thread, requests executed there in
 * delivery order and answered at once (the poller never waits for a send-queue slot: the agent's are reserved).
 * Requests and reads may come from any thread.
 */
public final class ConnectionAgent {
    /** Bytes per slot of the agent's send memory. */
    public static final int SLOT = 64;
    /** The header before the payload of a plain Send. */
    public static final int SEND_HEADER = AgentWire.CONTROL;

    private final AgentLink link;
    private final QueuePair qp;
    private final MemoryRegion slots;
    private final MemorySegment memory;
    private final int appSlots;
    private final int depth;
    private final Handshake.Negotiated terms;
    private final boolean atomicsByAgent;
    private final boolean immediateByAgent;
    private final Requester requester;
    private final Responder responder;
    /** This end's responses posted and not yet completed. */
    private final AtomicInteger unanswered = new AtomicInteger();
    /** Responses posted so far (poller thread only): picks the next response slot. */
    private long responsesPosted;

    private final AtomicLong immediateSent = new AtomicLong();
    private volatile boolean terminated;

    /**
     * An agent for the connection {@code link} posts on, with {@code qp} its queue pair.
     *
     * @param link             how the agent posts, reports failure and names the connection: the connection that owns
     *                         it
     * @param qp               the connection's RC queue pair: the agent posts its SENDs there and executes the peer's
     *                         atomics on its protection domain's registered memory
     * @param slots            the connection's agent memory ({@link #slotMemoryBytes}), in its protection domain
     * @param sendQueueDepth   the application's send-queue depth (its slots)
     * @param depth            this end's agent depth (its IRD, and the most its ORD may be)
     * @param terms            what the handshake agreed
     * @param atomicsByAgent   whether this end's atomics go through the agent (else the device executes them)
     * @param immediateByAgent whether this end's immediate data goes through the agent
     */
    public ConnectionAgent(
            AgentLink link,
            QueuePair qp,
            MemoryRegion slots,
            int sendQueueDepth,
            int depth,
            Handshake.Negotiated terms,
            boolean atomicsByAgent,
            boolean immediateByAgent) {
        if (slots.length() < slotMemoryBytes(sendQueueDepth, depth)) {
            throw new IllegalArgumentException("the agent's memory " + slots + " is smaller than "
                    + slotMemoryBytes(sendQueueDepth, depth) + " bytes");
        }
        this.link = link;
        this.qp = qp;
        this.slots = slots;
        this.memory = slots.segment();
        this.appSlots = sendQueueDepth;
        this.depth = depth;
        this.terms = terms;
        this.atomicsByAgent = atomicsByAgent;
        this.immediateByAgent = immediateByAgent;
        this.requester = new Requester(this::postRequest, terms.ord());
        this.responder = new Responder(AtomicTargets.of(qp.protectionDomain()), terms.ird());
        AgentWire.encodeSendHeader(memory, 0, false, 0);
    }

    /**
     * The agent memory a connection allocates: slots for the send header, the application, requests, responses.
     *
     * @param sendQueueDepth the application's send-queue depth: one slot each for its Sends' headers
     * @param depth          this end's agent depth: one request slot each and two response slots
     * @return the bytes to register: {@value #SLOT} per slot, with one for the plain Send header and one for a
     *         Terminate
     */
    public static long slotMemoryBytes(int sendQueueDepth, int depth) {
        return (long) SLOT * (1 + sendQueueDepth + 3L * depth + 1);
    }

    /**
     * Send-queue entries the agent adds: its requests, its responses (2 x depth, see Responder) and a Terminate.
     *
     * @param depth this end's agent depth (IRD), 1 to 255
     * @return entries to add to the application's send-queue depth: {@code 3 * depth + 1}
     */
    public static int extraSendQueueDepth(int depth) {
        return 3 * depth + 1;
    }

    /**
     * Receive buffers the agent adds: the peer's requests and responses, and its Terminate.
     *
     * @param depth this end's agent depth (IRD), 1 to 255
     * @return receive buffers to post beyond the application's: {@code 2 * depth + 1}
     */
    public static int extraReceives(int depth) {
        return 2 * depth + 1;
    }

    /**
     * Bytes a receive buffer needs so that the application's messages of {@code applicationSize} still fit.
     *
     * @param applicationSize the largest SEND the application receives, in bytes
     * @return the receive buffer size with room for the agent's header before it, and at least the largest agent
     *         message
     */
    public static int receiveBufferSize(int applicationSize) {
        return Math.max(applicationSize + AgentWire.MAX_SEND_HEADER, AgentWire.MAX_AGENT_MESSAGE);
    }

    // ------------------------------------------------------------------------------------------- capabilities

    /** {@return whether the agent provides the atomics on this connection (the device does not, or ALWAYS mode)} */
    public boolean atomicsByAgent() {
        return atomicsByAgent;
    }

    /** {@return whether the agent carries immediate data on this connection} */
    public boolean immediateByAgent() {
        return immediateByAgent;
    }

    /**
     * {@return the agent's send memory: the headers and messages it posts (owned by the connection, which closes it)}
     */
    public MemoryRegion slotMemory() {
        return slots;
    }

    /** {@return a snapshot of what the agent has done so far (a new object each call)} */
    public AgentStatistics statistics() {
        return new AgentStatistics(
                terms.ird(),
                terms.ord(),
                requester.sent(),
                requester.received(),
                responder.executed(),
                responder.replayed(),
                requester.highWater(),
                responder.highWater(),
                immediateSent.get());
    }

    // ------------------------------------------------------------------------------------ the application's SENDs

    /** {@return the offset of the constant header of a plain Send ({@link #SEND_HEADER} bytes) in the slot memory} */
    public long sendHeaderOffset() {
        return 0;
    }

    /**
     * Writes the header of a Send with immediate data into application slot {@code slot}.
     *
     * @param slot      the application's send slot, 0 to its send-queue depth - 1
     * @param immediate the 32-bit immediate data, delivered to the peer's application with the payload
     * @return the header's length in bytes: the SEND's gather list starts with them at {@link #appSlotOffset}
     * @throws IndexOutOfBoundsException if {@code slot} is not an application slot
     */
    public int sendWithImmediateHeader(int slot, int immediate) {
        immediateSent.incrementAndGet();
        return AgentWire.encodeSendHeader(memory, appSlotOffset(slot), true, immediate);
    }

    /**
     * Writes an Immediate Data message (RFC 7306 section 6) into application slot {@code slot}.
     *
     * @param slot      the application's send slot, 0 to its send-queue depth - 1
     * @param immediate the 32-bit immediate data
     * @return the message's length in bytes, at {@link #appSlotOffset}
     * @throws IndexOutOfBoundsException if {@code slot} is not an application slot
     */
    public int immediateData(int slot, int immediate) {
        immediateSent.incrementAndGet();
        return AgentWire.encodeImmediateData(memory, appSlotOffset(slot), immediate);
    }

    /**
     * The offset of application slot {@code slot} in {@link #slotMemory()}.
     *
     * @param slot the application's send slot, 0 to its send-queue depth - 1
     * @return the byte offset, {@value #SLOT} bytes per slot after the plain Send header
     * @throws IndexOutOfBoundsException if {@code slot} is not an application slot
     */
    public long appSlotOffset(int slot) {
        if (slot < 0 || slot >= appSlots) {
            throw new IndexOutOfBoundsException("application slot " + slot + " of " + appSlots);
        }
        return (long) SLOT * (1 + slot);
    }

    private long requestSlotOffset(long postIndex) {
        return (long) SLOT * (1 + appSlots + postIndex % depth);
    }

    private long responseSlotOffset(long responseIndex) {
        return (long) SLOT * (1 + appSlots + depth + responseIndex % (2L * depth));
    }

    private long terminateSlotOffset() {
        return (long) SLOT * (1 + appSlots + 3L * depth);
    }

    // ------------------------------------------------------------------------------------------ receiving

    /**
     * What the application gets of a received SEND: its payload's offset and immediate data.
     *
     * @param payloadOffset where the application's bytes start in the message (after the agent's header)
     * @param hasImmediate  whether the SEND carried immediate data
     * @param immediate     the immediate data; 0 when there is none
     */
    public record Delivery(int payloadOffset, boolean hasImmediate, int immediate) {}

    /**
     * A message received on the connection (exactly its bytes; valid during the call). Returns what to deliver to
     * the application, or null if it was the agent's (a request executed and answered, a response, a Terminate)
     * or broke the protocol (the connection is being terminated).
     *
     * @param message the received bytes (exactly the message, not the whole buffer); not kept past the call
     * @return what to hand the application, or {@code null}
     */
    public Delivery received(MemorySegment message) {
        if (terminated) {
            return null; // after a Terminate either way nothing more is processed (RFC 5040 section 7)
        }
        AgentWire.Message m;
        try {
            m = AgentWire.decode(message);
        } catch (AgentProtocolException e) {
            protocolError(e);
            return null;
        }
        switch (m) {
            case AgentWire.Send s -> {
                return new Delivery(s.payloadOffset(), s.hasImmediate(), (int) s.immediate());
            }
            case AgentWire.ImmediateData d -> {
                return new Delivery((int) message.byteSize(), true, (int) d.value());
            }
            case AgentWire.Request r -> {
                // after the connection's end (the poller drains what arrived before it): nothing executed whose
                // response cannot go; the requester sees the connection's failure for it either way
                if (!link.ended()) {
                    respond(r.request());
                }
            }
            case AgentWire.AtomicResponse a -> {
                try {
                    requester.onResponse(a.requestId(), a.originalValue());
                } catch (AgentProtocolException e) {
                    protocolError(e);
                }
            }
            case AgentWire.Terminate t -> peerTerminated(t);
        }
        return null;
    }

    // the response's callback only counts down and cannot throw; a response's send fails only with the connection,
    // which reports that failure itself
    /** Executes a delivered request and posts its response (on the poller thread: in delivery order). */
    @SuppressWarnings("FutureReturnValueIgnored")
    private void respond(AtomicRequest r) {
        Responder.Answer answer;
        try {
            answer = responder.handle(r, unanswered.get());
        } catch (AgentProtocolException e) {
            protocolError(e);
            return;
        }
        long offset = responseSlotOffset(responsesPosted++);
        int length = AgentWire.encodeResponse(memory, offset, r.requestId(), answer.originalValue());
        unanswered.incrementAndGet();
        link.postReserved(wrId -> qp.postSend(wrId, slots, offset, length, SendFlags.SIGNALED))
                .whenComplete((v, t) -> unanswered.decrementAndGet());
    }

    private void protocolError(AgentProtocolException e) {
        if (terminated) {
            return;
        }
        terminated = true;
        long offset = terminateSlotOffset();
        int length = AgentWire.encodeTerminate(memory, offset, e.error(), e.requestId());
        link.terminate(e, wrId -> qp.postSend(wrId, slots, offset, length, SendFlags.SIGNALED));
    }

    private void peerTerminated(AgentWire.Terminate t) {
        terminated = true;
        AgentTerminatedException e = new AgentTerminatedException(t.error(), t.requestId(), link.name());
        if (t.requestId() >= 0) {
            requester.failRequest(t.requestId(), e);
        }
        link.peerTerminated(e);
    }

    // ------------------------------------------------------------------------------------------ requesting

    /**
     * RFC 7306 FetchAdd (masked: {@code addMask} marks the fields' top bits; 0 is a plain 64-bit add).
     *
     * @param remoteAddress the peer's virtual address of the 8-byte word (8-byte aligned)
     * @param rkey          the peer region's key (remote atomic access)
     * @param add           the value added field by field
     * @param addMask       a set bit marks the most significant bit of a field; 0 is a plain 64-bit add
     * @return completes with the word's original value; fails with an {@link AgentTerminatedException} if the peer
     *         refuses it, an {@link IllegalArgumentException} (nothing sent) for an unaligned address, or the
     *         connection's failure
     */
    public CompletableFuture<Long> fetchAdd(long remoteAddress, int rkey, long add, long addMask) {
        return request(AtomicRequest.fetchAdd(0, rkey, remoteAddress, add, addMask));
    }

    /**
     * RFC 7306 CmpSwap (masked; all-ones masks: the plain compare-and-swap).
     *
     * @param remoteAddress the peer's virtual address of the 8-byte word (8-byte aligned)
     * @param rkey          the peer region's key (remote atomic access)
     * @param compare       the value compared under {@code compareMask}
     * @param compareMask   the bits compared
     * @param swap          the value written under {@code swapMask} if the compare matched
     * @param swapMask      the bits replaced
     * @return completes with the word's original value; fails with an {@link AgentTerminatedException} if the peer
     *         refuses it, an {@link IllegalArgumentException} (nothing sent) for an unaligned address, or the
     *         connection's failure
     */
    public CompletableFuture<Long> compareSwap(
            long remoteAddress, int rkey, long compare, long compareMask, long swap, long swapMask) {
        return request(AtomicRequest.compareSwap(0, rkey, remoteAddress, compare, compareMask, swap, swapMask));
    }

    private CompletableFuture<Long> request(AtomicRequest template) {
        if ((template.taggedOffset() & 7) != 0) {
            // refused here, as the device path refuses it (QueuePair): nothing is sent
            return CompletableFuture.failedFuture(new IllegalArgumentException("an atomic needs an 8-byte aligned "
                    + "remote address, got 0x" + Long.toHexString(template.taggedOffset())));
        }
        return requester.submit(template);
    }

    /**
     * An RDMA READ ordered after the agent atomics posted before it (see {@code Requester}): {@code read} posts it, at
     * once if none is outstanding. Where atomics are the device's, {@code read} is called at once.
     *
     * @param read posts the READ and returns its completion's future; called once, maybe later on another thread
     * @return completes when the READ completed, after every earlier agent atomic's response
     */
    public CompletableFuture<Void> orderedRead(Supplier<CompletableFuture<Void>> read) {
        return atomicsByAgent ? requester.orderedRead(read) : read.get();
    }

    private CompletableFuture<Void> postRequest(
            AtomicRequest template, long postIndex, Requester.IdAssignment assignment) {
        long offset = requestSlotOffset(postIndex);
        return link.postReserved(wrId -> {
            long id = assignment.assign();
            try {
                int length = AgentWire.encodeRequest(memory, offset, template.withRequestId(id));
                // FENCE: after every READ posted before it (Requester, "Order")
                qp.postSend(
                        wrId,
                        slots,
                        offset,
                        length,
                        SendFlags.SIGNALED | (requester.fenceNeeded() ? SendFlags.FENCE : 0));
            } catch (RuntimeException | Error | org.panamardma.verbs.RdmaException e) {
                assignment.notPosted();
                throw e;
            }
            assignment.posted();
        });
    }

    /**
     * Fails every request waiting or outstanding (the connection failed or closed).
     *
     * @param t the cause every pending future fails with
     */
    public void failAll(Throwable t) {
        requester.failAll(t);
    }

    @Override
    public String toString() {
        return "RFC 7306 agent of " + link.name() + " (IRD " + terms.ird() + ", ORD " + terms.ord() + ")";
    }
}
