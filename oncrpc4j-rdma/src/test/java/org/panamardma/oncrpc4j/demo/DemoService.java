package org.panamardma.oncrpc4j.demo;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.glassfish.grizzly.FileTransfer;

/**
 * The demo program as an oncrpc4j user writes it: typed procedures over XdrAble arguments and results; READ returns
 * a region of a file in a directory by {@code Xdr#xdrEncodeFileChunk}. One instance is served over oncrpc4j's TCP
 * and the RDMA bridge at once in the tests; it counts the calls it ran.
 */
public final class DemoService extends DemoServerStub {
    public static final OncRpcProgram PROGRAM = new OncRpcProgram(DEMO, DEMO_V1);
    /** LIST answers at most this many entries: the program's own bound on what a caller makes it build. */
    public static final int MAX_ENTRIES = 100_000;

    private final Path directory;
    private final Duration later;
    public final AtomicInteger calls = new AtomicInteger();
    public final AtomicInteger reads = new AtomicInteger();

    /**
     * @param directory READ serves the files in it (names without a slash)
     * @param later how long ECHO_LATER waits before it replies
     */
    public DemoService(Path directory, Duration later) {
        this.directory = directory;
        this.later = later;
    }

    @Override
    public Blob echo(RpcCall call, Blob args) {
        calls.incrementAndGet();
        return args;
    }

    @Override
    public long add(RpcCall call, AddArgs args) {
        calls.incrementAndGet();
        return args.a + args.b;
    }

    @Override
    public ReadRes read(RpcCall call, ReadArgs args) throws IOException {
        calls.incrementAndGet();
        reads.incrementAndGet();
        ReadRes res = new ReadRes();
        if (args.name.isEmpty()
                || args.name.contains("/")
                || args.name.startsWith(".")
                || args.offset < 0
                || args.count < 0) {
            res.status = EINVAL;
            return res;
        }
        Path file = directory.resolve(args.name);
        if (!Files.isRegularFile(file)) {
            res.status = ENOENT;
            return res;
        }
        long size = Files.size(file);
        long length = Math.max(0, Math.min(args.count, size - args.offset));
        res.status = OK;
        res.eof = args.offset + length >= size;
        res.file = new FileTransfer(new File(file.toString()), Math.min(args.offset, size), length);
        return res;
    }

    @Override
    public ListRes list(RpcCall call, ListArgs args) {
        calls.incrementAndGet();
        if (args.count < 0 || args.count > MAX_ENTRIES || args.nameLength < 1 || args.nameLength > 255) {
            throw new IllegalArgumentException("LIST of " + args.count + " names of " + args.nameLength);
        }
        ListRes res = new ListRes();
        for (int i = 0; i < args.count; i++) {
            res.entries.add(new Entry(i * 1000L + 7, name(i, args.nameLength), i % 3));
        }
        res.eof = true;
        return res;
    }

    /** Entry {@code i}'s name: its number, then letters up to {@code length}. */
    public static String name(int i, int length) {
        StringBuilder b = new StringBuilder(Integer.toString(i)).append('-');
        while (b.length() < length) {
            b.append((char) ('a' + (b.length() + i) % 26));
        }
        return b.substring(0, length);
    }

    @Override
    public void fail(RpcCall call, FailArgs args) throws OncRpcException, IOException {
        calls.incrementAndGet();
        switch (args.how) {
            case FAIL_RUNTIME -> throw new IllegalStateException("the program failed, as asked");
            case FAIL_AUTH ->
                throw new RpcAuthException("too weak, as asked", new RpcAuthError(RpcAuthStat.AUTH_TOOWEAK));
            case FAIL_XDR ->
                throw new OncRpcException("bad arguments, as asked") {
                    private static final long serialVersionUID = 1L;
                };
            case FAIL_IO -> throw new IOException("an I/O failure, as asked");
            default -> {}
        }
    }

    @Override
    public void echoLater(RpcCall call, Blob args) {
        calls.incrementAndGet();
        // a reply that fails shows as the caller's timeout
        var _ = CompletableFuture.runAsync(
                () -> call.reply(args), CompletableFuture.delayedExecutor(later.toMillis(), TimeUnit.MILLISECONDS));
    }
}
