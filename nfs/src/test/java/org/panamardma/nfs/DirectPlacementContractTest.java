package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.DataPlacement;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;

/**
 * What an RPC-over-RDMA transport will see of the NFS client, played by a stand-in transport that moves eligible
 * items "out of band" the way RFC 8166 does: WRITE data is taken through the encoder's {@link DataPlacement} (a Read
 * chunk) and never copied inline; READ data is written by the "server" straight into the reader's placement target
 * (a Write chunk) and the reduced reply carries only its length word (RFC 8166 section 3.4.6).
 */
class DirectPlacementContractTest {
    static final FileHandle3 FH = new FileHandle3(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});

    /** Items below this stay inline, as below an RDMA transport's inline threshold. */
    static final int CHUNK_THRESHOLD = 1024;

    static final class StandInRdmaTransport implements RpcTransport {
        final byte[] file = new byte[64 << 10];
        final List<Long> readChunkPositions = new ArrayList<>();
        long lastInlineCallSize;
        MemorySegment lastWriteChunkTarget;

        @Override
        public <T> T call(
                int program,
                int version,
                int procedure,
                OpaqueAuth credential,
                XdrEncodable arguments,
                ReplyReader<T> results,
                Duration timeout) {
            List<MemorySegment> readChunks = new ArrayList<>();
            DataPlacement placement = (position, data) -> {
                if (data.byteSize() < CHUNK_THRESHOLD) {
                    return false;
                }
                readChunkPositions.add(position);
                readChunks.add(data);
                return true;
            };
            XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[4096]), 0, placement);
            arguments.encodeTo(out);
            lastInlineCallSize = out.position();
            XdrDecoder args = new XdrDecoder(out.written(0));
            MemorySegment reply = MemorySegment.ofArray(new byte[4096]);
            XdrEncoder r = new XdrEncoder(reply);
            boolean placed = false;
            switch (procedure) {
                case Nfs3.PROC_WRITE -> {
                    FileHandle3.decode(args);
                    int offset = (int) args.getHyper();
                    int count = args.getInt();
                    int stable = args.getInt();
                    MemorySegment data;
                    if (readChunks.isEmpty()) {
                        data = args.getOpaque(count);
                    } else {
                        assertEquals(count, args.getInt(), "the length word stays inline");
                        data = readChunks.getFirst();
                    }
                    assertTrue(args.atEnd(), "nothing of chunked data inline, not even its roundup");
                    MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, file, offset, count);
                    r.putInt(0)
                            .putBoolean(false)
                            .putBoolean(false)
                            .putInt(count)
                            .putInt(stable)
                            .putHyper(7);
                }
                case Nfs3.PROC_READ -> {
                    FileHandle3.decode(args);
                    int offset = (int) args.getHyper();
                    int count = args.getInt();
                    MemorySegment target = results.placementTarget();
                    assertNotNull(target, "READ offers a Write chunk target");
                    lastWriteChunkTarget = target;
                    // the server's RDMA Write into the client's memory, then the reduced reply
                    MemorySegment.copy(file, offset, target, ValueLayout.JAVA_BYTE, 0, count);
                    r.putInt(0)
                            .putBoolean(false)
                            .putInt(count)
                            .putBoolean(false)
                            .putInt(count);
                    placed = true;
                }
                case Nfs3.PROC_FSINFO -> { // the client's limits, asked before its first READ or WRITE
                    FileHandle3.decode(args);
                    r.putInt(0);
                    StandInNfs3Server.LIMITS.encodeTo(r);
                }
                default -> throw new AssertionError("procedure " + procedure);
            }
            ReplyPlacement replyPlacement = placed
                    ? (in, max) -> results.placementTarget().asSlice(0, in.getLength(max, "placed data"))
                    : ReplyPlacement.INLINE;
            XdrDecoder in = new XdrDecoder(r.written(0));
            T value = results.read(in, replyPlacement);
            assertTrue(in.atEnd(), "the reader consumed the reduced reply exactly");
            return value;
        }

        @Override
        public String peer() {
            return "stand-in";
        }

        @Override
        public void close() {}
    }

    @Test
    void writeDataTravelsAsAReadChunkAtItsStreamPosition() throws Exception {
        StandInRdmaTransport transport = new StandInRdmaTransport();
        Nfs3Client nfs = new Nfs3Client(transport, OpaqueAuth.NONE, Duration.ofSeconds(1));
        byte[] data = new byte[10_001];
        new Random(3).nextBytes(data);
        WriteResult w = nfs.write(FH, 100, MemorySegment.ofArray(data), StableHow.FILE_SYNC);
        assertEquals(data.length, w.count());
        // fh (4 + 8) + offset 8 + count 4 + stable 4 + length word 4 = 32 inline bytes; the data starts at 32
        assertEquals(32, transport.lastInlineCallSize);
        assertEquals(List.of(32L), transport.readChunkPositions);
        byte[] stored = new byte[data.length];
        System.arraycopy(transport.file, 100, stored, 0, data.length);
        assertArrayEquals(data, stored);

        nfs.write(FH, 0, MemorySegment.ofArray(new byte[10]), StableHow.UNSTABLE);
        assertEquals(1, transport.readChunkPositions.size(), "a small WRITE stays inline");
    }

    @Test
    void readDataIsPlacedInTheCallersMemoryWithoutACopy() throws Exception {
        StandInRdmaTransport transport = new StandInRdmaTransport();
        new Random(4).nextBytes(transport.file);
        Nfs3Client nfs = new Nfs3Client(transport, OpaqueAuth.NONE, Duration.ofSeconds(1));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment into = arena.allocate(8192);
            ReadResult r = nfs.read(FH, 4096, into);
            assertEquals(8192, r.count());
            assertNull(r.attributes());
            assertEquals(into.address(), transport.lastWriteChunkTarget.address(), "the Write chunk is the buffer");
            assertEquals(into.address(), r.data().address());
            byte[] expected = new byte[8192];
            System.arraycopy(transport.file, 4096, expected, 0, 8192);
            assertArrayEquals(expected, into.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
