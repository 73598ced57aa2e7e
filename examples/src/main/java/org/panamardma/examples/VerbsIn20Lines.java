package org.panamardma.examples;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.PreparedQueuePair;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.QueuePairEndpoint;
import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;

/**
 * The README's "verbs-ffm in 20 lines" ({@link #run()}), with the peer it leaves to the reader: a queue pair on rxe1
 * in this process, whose endpoint and memory the "out of band" methods exchange by plain method calls.
 */
public final class VerbsIn20Lines implements AutoCloseable {
    private final Context peerContext;
    private final PreparedQueuePair peer;
    private final MemoryRegion peerData;
    private final MemoryRegion peerCommitWord;

    /** The peer on {@code peerDevice} (rxe1 in the testbed): a data region the example writes and flushes, a word. */
    public VerbsIn20Lines(String peerDevice) throws RdmaException {
        peerContext = Context.open(peerDevice);
        try {
            ProtectionDomain pd = peerContext.allocateProtectionDomain();
            CompletionQueue cq = peerContext.createCompletionQueue(16);
            Set<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            if (RdmaCore.Feature.FLUSH.isAvailable() && peerContext.attributes().supportsFlushGlobal()) {
                access.add(Access.FLUSH_GLOBAL); // Linux before 6.2 refuses the flag (and rdma-core 44 cannot FLUSH)
            }
            peerData = pd.allocate(4096, access);
            peerCommitWord = pd.allocate(8, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            peer = pd.queuePair().completionQueue(cq).prepare();
        } catch (RdmaException | RuntimeException e) {
            peerContext.close();
            throw e;
        }
    }

    /** The example: WRITE 512 bytes, FLUSH them to global visibility, then ATOMIC WRITE the commit word. */
    public void run() throws Exception {
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: verbs
        try (Context ctx = Context.open("rxe0");
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(64);
             WorkCompletions wc = WorkCompletions.allocate(16)) {
            MemoryRegion buf = pd.allocate(4096, Set.of(Access.LOCAL_WRITE)); // or pd.register(yourSegment, access)
            buf.segment().setString(0, "a record that must be durable before it counts");
            PreparedQueuePair prepared = pd.queuePair().completionQueue(cq).prepare();
            sendToPeer(prepared.endpoint());                                // QPN, PSN, GID: exchanged out of band
            QueuePair qp = prepared.connect(receiveFromPeer());             // INIT -> RTR -> RTS; only now can it post
            RemoteRegion remote = peerRegion(), commitWord = peerCommitWord(); // address, length, rkey at the peer
            qp.postWrite(1, buf, 0, 512, remote.address(), remote.rkey(), SendFlags.NONE);
            qp.postFlush(2, remote.address(), remote.rkey(), 512, FlushType.GLOBAL_VISIBILITY, FlushScope.RANGE,
                    SendFlags.SIGNALED);                                    // the WRITE is placed and visible
            qp.postAtomicWrite(3, commitWord.address(), commitWord.rkey(), 1L, SendFlags.SIGNALED);
            for (int done = 0; done < 2; ) {                                // the two signaled requests' completions
                int n = cq.poll(wc);                                        // polling allocates nothing
                for (int i = 0; i < n; i++) {
                    wc.check(i);                                            // WorkCompletionException: status, vendor error
                }
                done += n;
            }
        }
        // README end
        // spotless:on
    }

    /** What the peer's data region holds at {@code offset}, as a NUL-terminated string. */
    public String peerString(long offset) {
        return peerData.segment().getString(offset);
    }

    /** The peer's commit word. */
    public long peerCommitWordValue() {
        return peerCommitWord.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    private void sendToPeer(QueuePairEndpoint endpoint) throws RdmaException {
        peer.connect(endpoint);
    }

    private QueuePairEndpoint receiveFromPeer() {
        return peer.endpoint();
    }

    private RemoteRegion peerRegion() {
        return peerData.remote();
    }

    private RemoteRegion peerCommitWord() {
        return peerCommitWord.remote();
    }

    @Override
    public void close() {
        peerContext.close();
    }
}
