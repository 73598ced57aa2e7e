package org.panamardma.benchmarks;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.panamardma.benchmarks.RcConnection.awaitOne;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;

/**
 * The verbs data path, one operation end to end per benchmark call: post, then poll until its completion (and, for
 * SEND, the receiver's completion and the re-post of the receive it consumed). Run with {@code -prof gc}: the point
 * is {@code gc.alloc.rate.norm}, which must be 0 B/op — the data path allocates nothing.
 *
 * <p>Needs two connected RDMA devices of the InfiniBand transport (RoCE): {@code -Dbench.device} (default
 * {@code rxe0}) and {@code -Dbench.peer} (default {@code rxe1}), as in the testbed VM. Pass them to the forks with
 * {@code -jvmArgsAppend "-Dbench.device=mlx5_0 -Dbench.peer=mlx5_1"} (or on the launching JVM: forks inherit its
 * arguments).
 *
 * <p>Every request is {@link SendFlags#SIGNALED} and at most one is in flight per queue, so nothing overflows: the
 * send queues never hold more than one request, the receiver keeps {@value #RECEIVES} receives posted.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DataPathBenchmark {
    /** Device of the requesting QPs. */
    public static final String DEVICE_PROPERTY = "bench.device";
    /** Device of the responding QPs. */
    public static final String PEER_PROPERTY = "bench.peer";

    static final int QUEUE_DEPTH = 64;
    static final int RECEIVES = 32;
    static final int LENGTH = 8;

    // layout of both 4 KiB buffers
    static final long DATA = 0; // WRITE source / target, READ source, SEND source
    static final long READ_INTO = 64; // READ target at the requester
    static final long ATOMIC = 128; // FETCH AND ADD: the word at the responder, the result at the requester
    static final long RECV_BASE = 1024; // receive i lands at RECV_BASE + 8 * i at the responder

    private static final int SIGNALED = SendFlags.SIGNALED;
    /** Both buffers take every benchmarked operation: receives, WRITE, READ and FetchAdd by the peer. */
    private static final Set<Access> EVERY_OPERATION =
            Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);

    private Context ctxA;
    private Context ctxB;
    private MemoryRegion local;
    private MemoryRegion remote;
    private RcConnection extended;
    private RcConnection legacy;
    private CompletionQueue idleCq;
    private WorkCompletions wc;
    private long remoteData;
    private long remoteAtomic;
    private int rkey;
    private long wrId;

    @Setup(Level.Trial)
    public void open() throws RdmaException {
        String device = System.getProperty(DEVICE_PROPERTY, "rxe0");
        String peer = System.getProperty(PEER_PROPERTY, "rxe1");
        ctxA = Context.open(device);
        try {
            ctxB = Context.open(peer);
            ProtectionDomain pdA = ctxA.allocateProtectionDomain();
            ProtectionDomain pdB = ctxB.allocateProtectionDomain();
            local = pdA.allocate(4096, EVERY_OPERATION);
            remote = pdB.allocate(4096, EVERY_OPERATION);
            extended = RcConnection.open(pdA, pdB, QUEUE_DEPTH, false);
            legacy = RcConnection.open(pdA, pdB, QUEUE_DEPTH, true);
            idleCq = ctxA.createCompletionQueue(QUEUE_DEPTH);
            wc = WorkCompletions.allocate(4);
            remoteData = remote.address() + DATA;
            remoteAtomic = remote.address() + ATOMIC;
            rkey = remote.rkey();
            for (int i = 0; i < RECEIVES; i++) {
                extended.b.postReceive(i, remote, RECV_BASE + (long) LENGTH * i, LENGTH);
            }
            selfCheck();
        } catch (RdmaException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** One of each, with the data checked, so that a benchmark measures operations that really work. */
    private void selfCheck() throws RdmaException {
        local.segment().set(JAVA_LONG, DATA, 0x1122334455667788L);
        rdmaWrite();
        check(remote.segment().get(JAVA_LONG, DATA) == 0x1122334455667788L, "RDMA WRITE did not land");
        local.segment().set(JAVA_LONG, DATA, 0x0102030405060708L);
        rdmaWriteLegacy();
        check(remote.segment().get(JAVA_LONG, DATA) == 0x0102030405060708L, "RDMA WRITE (legacy) did not land");
        rdmaRead();
        check(local.segment().get(JAVA_LONG, READ_INTO) == 0x0102030405060708L, "RDMA READ did not land");
        remote.segment().set(JAVA_LONG, ATOMIC, 41);
        atomicFetchAdd();
        check(
                local.segment().get(JAVA_LONG, ATOMIC) == 41 && remote.segment().get(JAVA_LONG, ATOMIC) == 42,
                "FETCH AND ADD did not add");
        long consumed = sendRecv();
        check(
                remote.segment().get(JAVA_LONG, RECV_BASE + LENGTH * consumed) == 0x0102030405060708L,
                "SEND did not land in receive " + consumed);
        check(pollEmpty() == 0, "the idle CQ has completions");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("self-check failed: " + what);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (wc != null) {
            wc.close();
        }
        if (ctxB != null) {
            ctxB.close();
        }
        if (ctxA != null) {
            ctxA.close();
        }
    }

    /** RDMA WRITE of 8 bytes, signaled, on the extended send path ({@code ibv_wr_rdma_write}); its completion. */
    @Benchmark
    public long rdmaWrite() throws RdmaException {
        extended.a.postWrite(++wrId, local, DATA, LENGTH, remoteData, rkey, SIGNALED);
        return awaitOne(extended.cqA, wc);
    }

    /** The same RDMA WRITE on a QP built with {@code legacySendPath(true)}: {@code ibv_post_send}. */
    @Benchmark
    public long rdmaWriteLegacy() throws RdmaException {
        legacy.a.postWrite(++wrId, local, DATA, LENGTH, remoteData, rkey, SIGNALED);
        return awaitOne(legacy.cqA, wc);
    }

    /**
     * SEND of 8 bytes: the send's completion, the receiver's completion, and the re-post of the receive it consumed
     * (so the responder always has {@value #RECEIVES} posted). Returns the consumed receive's wrId.
     */
    @Benchmark
    public long sendRecv() throws RdmaException {
        extended.a.postSend(++wrId, local, DATA, LENGTH, SIGNALED);
        awaitOne(extended.cqA, wc);
        long receive = awaitOne(extended.cqB, wc);
        extended.b.postReceive(receive, remote, RECV_BASE + LENGTH * receive, LENGTH);
        return receive;
    }

    /** RDMA READ of 8 bytes into the requester's buffer; its completion. */
    @Benchmark
    public long rdmaRead() throws RdmaException {
        extended.a.postRead(++wrId, local, READ_INTO, LENGTH, remoteData, rkey, SIGNALED);
        return awaitOne(extended.cqA, wc);
    }

    /** ATOMIC FETCH AND ADD of 1 on the responder's word; its completion. */
    @Benchmark
    public long atomicFetchAdd() throws RdmaException {
        extended.a.postFetchAdd(++wrId, local, ATOMIC, remoteAtomic, rkey, 1, SIGNALED);
        return awaitOne(extended.cqA, wc);
    }

    /** {@code ibv_poll_cq} of an empty CQ: the floor of every poll loop. */
    @Benchmark
    public int pollEmpty() throws RdmaException {
        return idleCq.poll(wc);
    }
}
