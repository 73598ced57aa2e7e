package org.panamardma.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendChain;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.StubLoopback;

/**
 * What posting a reply as one chain saves on the host CPU (issue 26: "the reply's Write WRs and its Send go to the
 * device in one post"): {@link #writes} unsignaled RDMA WRITEs and a signaled SEND, then the poll of the SEND's
 * completion, posted one request per call ({@code separate}: RdmaConnection.writesThenSend before the chain) or as
 * one {@link SendChain} ({@code chain}: one ibv_post_send of a linked list). The device is the stub provider, which
 * completes at once: the result is the binding's and the provider's cost per reply. On a real device each post also
 * rings a doorbell (rxe: a write() system call per ibv_post_send, ProviderTraits), which the chain saves
 * {@code writes} times per reply on top of this. Run with {@code java -jar benchmarks/target/benchmarks.jar
 * ReplyChainBenchmark}.
 */
public class ReplyChainBenchmark extends StubBenchmarkSettings {
    /** WRITEs per reply: an NFS READ reply of 1 MiB in 256 KiB segments is 4 (svcrdma's per-segment Write WRs). */
    @Param({"1", "4"})
    public int writes;

    @Param({"ext", "legacy"})
    public String path;

    private StubBench bench;
    private StubLoopback loop;
    private SendChain chain;
    private long wrId;

    @Setup(Level.Trial)
    public void open() throws Exception {
        bench = StubBench.open(path);
        loop = bench.loop;
        chain = new SendChain(writes + 1);
        if (separate() != wrId || chain() != wrId) {
            throw new IllegalStateException("a reply did not complete with its SEND alone");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (bench != null) {
            bench.close();
        }
    }

    /** One post per request, as before the chain. */
    @Benchmark
    public long separate() throws RdmaException {
        for (int w = 0; w < writes; w++) {
            loop.qp.postWrite(
                    ++wrId, loop.local, 8L * w, 8, loop.remote.address() + 8L * w, loop.remote.rkey(), SendFlags.NONE);
        }
        loop.qp.postSend(++wrId, loop.local, 0, StubLoopback.LENGTH, SendFlags.SIGNALED);
        return poll();
    }

    /** The reply as one chain: one post. */
    @Benchmark
    public long chain() throws RdmaException {
        chain.clear();
        for (int w = 0; w < writes; w++) {
            chain.write(
                    ++wrId, loop.local, 8L * w, 8, loop.remote.address() + 8L * w, loop.remote.rkey(), SendFlags.NONE);
        }
        chain.send(++wrId, loop.local, 0, StubLoopback.LENGTH, SendFlags.SIGNALED);
        loop.qp.postChain(chain);
        return poll();
    }

    private long poll() throws RdmaException {
        return bench.pollOne(wrId);
    }
}
