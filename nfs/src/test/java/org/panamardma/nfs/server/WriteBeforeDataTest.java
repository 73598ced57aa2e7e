package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3Args.WriteArgs;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.StableHow;
import org.panamardma.oncrpc.CallArrival;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * An NFS WRITE taken before its data arrived (over RPC-over-RDMA its data is the Read chunk, still being read):
 * its arguments decode from what arrived, without waiting, when the chunk starts at the data; when a client puts
 * the chunk among the fixed arguments, they are decoded only once it arrived (never from bytes still landing); and
 * the procedure's wait for the data ({@link CallScope#awaitData}) returns once it arrived, or fails with
 * NFS3ERR_IO if it never does. The arrival is played by a future the test completes, over native memory the test
 * writes "the Reads' bytes" into first.
 */
class WriteBeforeDataTest {
    private static final FileHandle3 FILE = new FileHandle3(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    private static final byte[] DATA = {10, 20, 30, 40, 50, 60, 70, 80};

    /** WRITE3args in native memory; returns them with the offset of the data's first byte. */
    private static MemorySegment args(Arena arena, long offset) {
        MemorySegment m = arena.allocate(256);
        XdrEncoder out = new XdrEncoder(m);
        new WriteArgs(FILE, offset, DATA.length, StableHow.UNSTABLE, MemorySegment.ofArray(DATA)).encodeTo(out);
        return m.asSlice(0, out.position());
    }

    private static long dataAt(MemorySegment args) {
        return args.byteSize() - DATA.length; // DATA is a multiple of 4 long: no roundup
    }

    @Test
    void aChunkAtTheDataDecodesAtOnceAndTheDataIsReadAfterItArrived() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment args = args(arena, 4096);
            long dataAt = dataAt(args);
            args.asSlice(dataAt).fill((byte) 0); // not landed yet
            CompletableFuture<Void> reads = new CompletableFuture<>();
            CallArrival arrival = CallArrival.pending(args, dataAt, reads);
            WriteArgs a = arrival.during(() -> FileDataProcedures.decodeWriteBeforeData(new XdrDecoder(args)));
            assertFalse(reads.isDone(), "decoded without waiting");
            assertEquals(FILE, a.file());
            assertEquals(4096, a.offset());
            assertEquals(DATA.length, a.count());
            assertEquals(args.address() + dataAt, a.data().address(), "the data is the slice the Reads land in");

            CallScope scope = arrival.during(() -> new CallScope(null)); // on the transport's thread
            CompletableFuture<byte[]> written = CompletableFuture.supplyAsync(() -> {
                try {
                    return scope.during(() -> {
                        CallScope.awaitData(); // the procedure's thread, before it writes
                        return a.data().toArray(ValueLayout.JAVA_BYTE);
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(100);
            assertFalse(written.isDone(), "the procedure read the data before it arrived");
            MemorySegment.copy(MemorySegment.ofArray(DATA), 0, args, dataAt, DATA.length); // the Reads land
            reads.complete(null);
            assertArrayEquals(DATA, written.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aChunkAmongTheFixedArgumentsIsWaitedForBeforeTheyAreDecoded() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment args = args(arena, 0x1234_5678L);
            long offsetAt = 4 + 12; // after the handle's length word and its 12 bytes
            MemorySegment landed = MemorySegment.ofArray(args.toArray(ValueLayout.JAVA_BYTE));
            // a hostile client's chunk starts at the offset; not landed, its bytes would decode as a WRITE of nothing at
            // offset 0 (the room's memory may hold anything: zeros decode, where other bytes may not)
            args.asSlice(offsetAt).fill((byte) 0);
            CompletableFuture<Void> reads = new CompletableFuture<>();
            CallArrival arrival = CallArrival.pending(args, offsetAt, reads);
            CompletableFuture<WriteArgs> decoded = CompletableFuture.supplyAsync(
                    () -> arrival.during(() -> FileDataProcedures.decodeWriteBeforeData(new XdrDecoder(args))));
            Thread.sleep(100);
            assertFalse(decoded.isDone(), "decoded from bytes still landing");
            MemorySegment.copy(landed, offsetAt, args, offsetAt, args.byteSize() - offsetAt);
            reads.complete(null);
            WriteArgs a = decoded.get(10, TimeUnit.SECONDS);
            assertEquals(0x1234_5678L, a.offset(), "the offset as it arrived");
            assertEquals(DATA.length, a.count());
            assertArrayEquals(DATA, a.data().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void dataThatNeverArrivesFailsTheDecodeOrTheWait() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment args = args(arena, 0);
            CompletableFuture<Void> reads = new CompletableFuture<>();
            reads.completeExceptionally(new IOException("RDMA Read failed"));
            CallArrival hostile = CallArrival.pending(args, 8, reads);
            assertThrows(
                    XdrException.class,
                    () -> hostile.during(() -> FileDataProcedures.decodeWriteBeforeData(new XdrDecoder(args))));
            CallScope scope = CallArrival.pending(args, dataAt(args), reads).during(() -> new CallScope(null));
            NfsError e = assertThrows(
                    NfsError.class,
                    () -> scope.during(() -> {
                        CallScope.awaitData();
                        return null;
                    }));
            assertEquals(NfsStat3.NFS3ERR_IO, e.status());
            assertTrue(e.getMessage().contains("RDMA Read failed"), e.getMessage());
        }
    }
}
