package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.panamardma.xdr.XdrEncoder;

/** Property-style: random headers within the default limits encode, decode to themselves, and size correctly. */
class RpcRdmaHeaderRoundTripTest {
    private static final long SEED = 0x8166L;
    private final Random random = new Random(SEED);
    private final HeaderLimits limits = HeaderLimits.DEFAULT;

    private RdmaSegment segment() {
        return new RdmaSegment(random.nextInt(), random.nextInt(0, limits.maxSegmentLength() + 1), random.nextLong());
    }

    private WriteChunk writeChunk() {
        List<RdmaSegment> segments = new ArrayList<>();
        int count = random.nextInt(1, 6); // a chunk of no segment is refused (HeaderFault.EMPTY_CHUNK)
        for (int i = 0; i < count; i++) {
            segments.add(segment());
        }
        return new WriteChunk(segments);
    }

    private ChunkLists chunks() {
        List<ReadSegment> reads = new ArrayList<>();
        int position = random.nextInt(0, 64) * 4;
        int count = random.nextInt(0, 6);
        for (int i = 0; i < count; i++) {
            position += random.nextBoolean() ? 0 : random.nextInt(1, 1000) * 4; // same chunk or a later one
            reads.add(new ReadSegment(position, segment()));
        }
        List<WriteChunk> writes = new ArrayList<>();
        int chunks = random.nextInt(0, 4);
        for (int i = 0; i < chunks; i++) {
            writes.add(writeChunk());
        }
        Optional<WriteChunk> reply = random.nextBoolean() ? Optional.of(writeChunk()) : Optional.empty();
        ChunkLists lists = new ChunkLists(reads, writes, reply);
        return lists.isEmpty() ? new ChunkLists(reads, writes, Optional.of(writeChunk())) : lists;
    }

    private RpcRdmaHeader header() {
        int xid = random.nextInt();
        int credits = random.nextInt();
        return switch (random.nextInt(7)) {
            case 0 -> new RdmaMsg(xid, credits, chunks());
            case 1 -> new RdmaNoMsg(xid, credits, chunks());
            case 2 -> new RdmaMsgp(xid, credits, random.nextInt(), random.nextInt(), chunks());
            case 3 -> new RdmaDone(xid, credits);
            case 4 -> new RdmaError.VersionMismatch(xid, credits, random.nextInt(), random.nextInt());
            case 5 -> new RdmaError.ChunkError(xid, credits);
            default ->
                new RdmaError.Unrecognized(
                        xid,
                        credits,
                        random.nextInt(3, 1000),
                        random.ints(8).boxed().toList());
        };
    }

    @Test
    void randomHeadersRoundTrip() throws RpcRdmaHeaderException {
        RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder(limits);
        for (int round = 0; round < 2000; round++) {
            RpcRdmaHeader header = header();
            int size = RpcRdmaHeaderEncoder.size(header);
            MemorySegment buffer = MemorySegment.ofArray(new byte[size + 12]);
            XdrEncoder out = new XdrEncoder(buffer);
            RpcRdmaHeaderEncoder.encode(header, out);
            assertEquals(size, out.position(), "size of " + header);

            DecodedHeader decoded = decoder.decode(buffer);
            if (!(header instanceof RdmaError.Unrecognized)) { // its extra words run to the end of the buffer
                assertEquals(size, decoded.length(), "length of " + header);
            }
            assertEquals(header, decoded.header(), "round " + round);
        }
    }

    @Test
    void randomHeadersTruncatedAnywhereAreRefusedAsTruncated() {
        RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder(limits);
        for (int round = 0; round < 200; round++) {
            RpcRdmaHeader header = header();
            if (header instanceof RdmaError.Unrecognized) {
                continue; // takes whatever extra words there are: any cut after the code is a valid header
            }
            int size = RpcRdmaHeaderEncoder.size(header);
            MemorySegment buffer = MemorySegment.ofArray(new byte[size]);
            RpcRdmaHeaderEncoder.encode(header, new XdrEncoder(buffer));
            for (int cut = 0; cut < size; cut++) {
                MemorySegment prefix = buffer.asSlice(0, cut);
                RpcRdmaHeaderException e = assertThrows(RpcRdmaHeaderException.class, () -> decoder.decode(prefix));
                assertEquals(HeaderFault.TRUNCATED, e.fault(), e.getMessage());
            }
        }
    }
}
