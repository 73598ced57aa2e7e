package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.xdr.DataPlacement;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/** The NFSv3 codecs against bytes built by hand from RFC 1813 section 3's argument and result layouts. */
class Nfs3XdrTest {
    static final FileHandle3 FH = new FileHandle3(new byte[] {1, 2, 3, 4, 5}); // 5 bytes: 3 of padding

    static byte[] encode(XdrEncodable args) {
        return encode(args, DataPlacement.INLINE);
    }

    static byte[] encode(XdrEncodable args, DataPlacement placement) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[1 << 16]);
        XdrEncoder out = new XdrEncoder(buffer, 0, placement);
        args.encodeTo(out);
        return out.written(0).toArray(ValueLayout.JAVA_BYTE);
    }

    static XdrDecoder in(Wire wire) {
        return new XdrDecoder(wire.segment());
    }

    // ---- arguments ----

    @Test
    void getattrArgumentsAreTheHandle() {
        assertArrayEquals(Wire.of().hex("00000005 0102030405 000000").bytes(), encode(Nfs3Xdr.getattr(FH)));
    }

    @Test
    void lookupArgumentsAreHandleAndName() {
        assertArrayEquals(
                Wire.of()
                        .opaque(FH.bytes())
                        .hex("00000009")
                        .hex("68656c6c6f2e747874 000000")
                        .bytes(),
                encode(Nfs3Xdr.lookup(FH, "hello.txt")));
    }

    @Test
    void readArgumentsAreHandleOffsetCount() {
        assertArrayEquals(
                Wire.of()
                        .opaque(FH.bytes())
                        .hex("00000001 00000000")
                        .hex("00100000")
                        .bytes(),
                encode(Nfs3Xdr.read(FH, 1L << 32, 1 << 20)));
        assertArrayEquals(
                Wire.of().opaque(FH.bytes()).u64(-1L).u32(0x7FFF_FFFFL).bytes(),
                encode(Nfs3Xdr.read(FH, -1L, Integer.MAX_VALUE)),
                "offset is a full uint64");
        assertThrows(IllegalArgumentException.class, () -> Nfs3Xdr.read(FH, 0, -1));
    }

    @Test
    void writeArgumentsCarryCountStableAndTheData() {
        byte[] data = {9, 8, 7, 6, 5, 4};
        assertArrayEquals(
                Wire.of()
                        .opaque(FH.bytes())
                        .u64(4096)
                        .u32(6)
                        .u32(2)
                        .hex("00000006 090807060504 0000")
                        .bytes(),
                encode(Nfs3Xdr.write(FH, 4096, StableHow.FILE_SYNC, MemorySegment.ofArray(data))));
    }

    @Test
    void writeDataIsOfferedForDirectPlacementAndThenLeftOutOfTheStream() {
        byte[] data = new byte[4097]; // 3 bytes of roundup that a Read chunk does not carry inline either
        List<Long> offered = new ArrayList<>();
        DataPlacement chunk = (position, segment) -> {
            offered.add(position);
            assertEquals(data.length, segment.byteSize());
            return true;
        };
        byte[] reduced = encode(Nfs3Xdr.write(FH, 0, StableHow.UNSTABLE, MemorySegment.ofArray(data)), chunk);
        // RFC 8166 section 3.4.5: what stays inline is everything up to and including the length word
        assertArrayEquals(
                Wire.of().opaque(FH.bytes()).u64(0).u32(4097).u32(0).u32(4097).bytes(), reduced);
        assertEquals(List.of((long) reduced.length), offered, "the data's position in the full stream");
    }

    @Test
    void commitReaddirAndReaddirplusArguments() {
        assertArrayEquals(Wire.of().opaque(FH.bytes()).u64(0).u32(0).bytes(), encode(Nfs3Xdr.commit(FH, 0, 0)));
        assertArrayEquals(
                Wire.of()
                        .opaque(FH.bytes())
                        .u64(1234)
                        .hex("0102030405060708")
                        .u32(8192)
                        .bytes(),
                encode(Nfs3Xdr.readdir(FH, 1234, 0x0102030405060708L, 8192)));
        assertArrayEquals(
                Wire.of().opaque(FH.bytes()).u64(0).u64(0).u32(4096).u32(32768).bytes(),
                encode(Nfs3Xdr.readdirplus(FH, 0, 0, 4096, 32768)));
    }

    @Test
    void aHandleOverSixtyFourBytesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new FileHandle3(new byte[65]));
        Wire tooLong = Wire.of().opaque(new byte[65]);
        XdrException e = assertThrows(XdrException.class, () -> FileHandle3.decode(in(tooLong)));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, e.reason());
    }

    // ---- results ----

    @Test
    void getattrResultsDecodeEveryFattr3Field() throws Exception {
        Nfs3Result<Fattr3> r = Nfs3ResultsXdr.getattrResults(in(Wire.of().u32(0).fattr3(2, 4096, 0x1_0000_0002L)));
        Fattr3 a = r.orThrow("GETATTR");
        assertEquals(
                new Fattr3(
                        FileType3.NF3DIR,
                        0644,
                        1,
                        1000,
                        100,
                        4096,
                        4096,
                        0,
                        0,
                        77,
                        0x1_0000_0002L,
                        new NfsTime3(1_700_000_000, 1),
                        new NfsTime3(1_700_000_001, 2),
                        new NfsTime3(1_700_000_002, 3)),
                a);
        assertEquals(Nfs3.FATTR3_SIZE, Wire.of().fattr3(1, 0, 0).bytes().length);
    }

    @Test
    void fattr3EncodesAsItDecodes() {
        byte[] wire = Wire.of().fattr3(1, 123456789012L, 42).bytes();
        Fattr3 a = Fattr3.decode(new XdrDecoder(MemorySegment.ofArray(wire)));
        assertArrayEquals(wire, encode(a::encodeTo));
    }

    @Test
    void unsignedFieldsKeepTheirHighBit() {
        Wire w = Wire.of()
                .u32(0)
                .u32(1)
                .u32(0xFFFF_FFFFL)
                .u32(0xFFFF_FFFFL)
                .u32(0xFFFF_FFFEL)
                .u32(0xFFFF_FFFEL)
                .u64(-1L)
                .u64(-2L)
                .u32(0)
                .u32(0)
                .u64(1)
                .u64(-3L)
                .u32(0xFFFF_FFFFL)
                .u32(0)
                .u32(0)
                .u32(0)
                .u32(0)
                .u32(0);
        Fattr3 a = Nfs3ResultsXdr.getattrResults(in(w)).value();
        assertEquals(0xFFFF_FFFFL, a.mode());
        assertEquals(0xFFFF_FFFEL, a.uid());
        assertEquals("18446744073709551615", Long.toUnsignedString(a.size()));
        assertEquals(0xFFFF_FFFFL, a.atime().seconds());
    }

    @Test
    void errorStatusesAndTheirFailureBodies() throws Exception {
        XdrDecoder d = in(Wire.of().u32(70));
        Nfs3Result<Fattr3> stale = Nfs3ResultsXdr.getattrResults(d);
        assertEquals(NfsStat3.NFS3ERR_STALE, stale.status());
        assertTrue(d.atEnd());
        NfsException e = assertThrows(NfsException.class, () -> stale.orThrow("GETATTR"));
        assertEquals(NfsStat3.NFS3ERR_STALE, e.status());

        d = in(Wire.of().u32(2).u32(1).fattr3(2, 0, 1)); // LOOKUP3resfail: dir_attributes present
        assertEquals(NfsStat3.NFS3ERR_NOENT, Nfs3ResultsXdr.lookupResults(d).status());
        assertTrue(d.atEnd(), "the failure's post_op_attr is consumed");

        d = in(Wire.of().u32(28).u32(1).u64(10).u32(1).u32(0).u32(1).u32(0).u32(0)); // WRITE3resfail: wcc pre only
        assertEquals(NfsStat3.NFS3ERR_NOSPC, Nfs3ResultsXdr.writeResults(d).status());
        assertTrue(d.atEnd());
    }

    @Test
    void anUnknownStatusOrTypeIsAnXdrError() {
        XdrException e = assertThrows(
                XdrException.class,
                () -> Nfs3ResultsXdr.getattrResults(in(Wire.of().u32(12345))));
        assertEquals(XdrException.Reason.INVALID_VALUE, e.reason());
        e = assertThrows(
                XdrException.class,
                () -> Nfs3ResultsXdr.getattrResults(in(Wire.of().u32(0).fattr3(8, 0, 0))));
        assertEquals(XdrException.Reason.INVALID_VALUE, e.reason());
        e = assertThrows(
                XdrException.class,
                () -> Nfs3ResultsXdr.getattrResults(in(Wire.of().u32(0).hex("00000001 000001a4"))));
        assertEquals(XdrException.Reason.TRUNCATED, e.reason());
    }

    @Test
    void lookupResultsCarryHandleAndBothAttributes() throws Exception {
        LookupResult r = Nfs3ResultsXdr.lookupResults(in(Wire.of()
                        .u32(0)
                        .opaque(new byte[] {7, 7, 7, 7, 7, 7, 7, 7})
                        .u32(1)
                        .fattr3(1, 17, 99)
                        .u32(0)))
                .orThrow("LOOKUP");
        assertEquals(new FileHandle3(new byte[] {7, 7, 7, 7, 7, 7, 7, 7}), r.handle());
        assertEquals(17, r.attributes().size());
        assertNull(r.directoryAttributes());
    }

    static Wire readReply(byte[] data, boolean eof) {
        return Wire.of()
                .u32(0)
                .u32(1)
                .fattr3(1, 1 << 20, 5)
                .u32(data.length)
                .u32(eof ? 1 : 0)
                .opaque(data);
    }

    @Test
    void inlineReadDataIsCopiedIntoTheCallersBuffer() throws Exception {
        byte[] data = {1, 2, 3, 4, 5, 6, 7};
        MemorySegment target = MemorySegment.ofArray(new byte[16]);
        ReplyReader<Nfs3Result<ReadResult>> reader = Nfs3ResultsXdr.readResults(target);
        assertSame(target, reader.placementTarget(), "the buffer is offered for direct placement");
        XdrDecoder d = in(readReply(data, true));
        ReadResult r = reader.read(d, ReplyPlacement.INLINE).orThrow("READ");
        assertTrue(d.atEnd());
        assertEquals(7, r.count());
        assertTrue(r.eof());
        assertArrayEquals(data, r.data().toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(data, target.asSlice(0, 7).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(4 + 88 + 8 + 4 + 16, reader.maxResultsSize());
    }

    @Test
    void placedReadDataIsTakenFromTheTargetWithoutItsBytesInTheStream() throws Exception {
        MemorySegment target = MemorySegment.ofArray(new byte[16]);
        target.set(ValueLayout.JAVA_BYTE, 0, (byte) 42); // as if the server had RDMA-written it
        // RFC 8166 section 3.4.6: the reduced reply keeps the length word (5), not the data nor its roundup
        Wire reduced = Wire.of().u32(0).u32(0).u32(5).u32(0).u32(5);
        ReplyPlacement placed = (in, max) -> {
            int length = in.getLength(max, "placed opaque");
            return target.asSlice(0, length);
        };
        XdrDecoder d = in(reduced);
        ReadResult r = Nfs3ResultsXdr.readResults(target).read(d, placed).orThrow("READ");
        assertTrue(d.atEnd());
        assertEquals(5, r.count());
        assertFalse(r.eof());
        assertNull(r.attributes());
        assertEquals(42, r.data().get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void readReplyLongerThanAskedOrDisagreeingWithItsCountIsRefused() {
        MemorySegment small = MemorySegment.ofArray(new byte[4]);
        XdrException e = assertThrows(
                XdrException.class,
                () -> Nfs3ResultsXdr.readResults(small).read(in(readReply(new byte[8], false)), ReplyPlacement.INLINE));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, e.reason());
        Wire lying = Wire.of().u32(0).u32(0).u32(3).u32(0).opaque(new byte[] {1, 2});
        e = assertThrows(
                XdrException.class,
                () -> Nfs3ResultsXdr.readResults(MemorySegment.ofArray(new byte[4]))
                        .read(in(lying), ReplyPlacement.INLINE));
        assertEquals(XdrException.Reason.INVALID_VALUE, e.reason());
    }

    @Test
    void writeAndCommitResults() throws Exception {
        Wire wcc = Wire.of().u32(1).u64(0).u32(10).u32(0).u32(11).u32(0).u32(1).fattr3(1, 6, 9);
        WriteResult w = Nfs3ResultsXdr.writeResults(
                        in(Wire.of().u32(0).hex(hexOf(wcc)).u32(6).u32(0).hex("cafebabe00000001")))
                .orThrow("WRITE");
        assertEquals(6, w.count());
        assertEquals(StableHow.UNSTABLE, w.committed());
        assertEquals(0xcafebabe00000001L, w.verifier());
        assertEquals(0, w.wcc().before().size());
        assertEquals(new NfsTime3(10, 0), w.wcc().before().mtime());
        assertEquals(6, w.wcc().after().size());

        CommitResult c = Nfs3ResultsXdr.commitResults(
                        in(Wire.of().u32(0).u32(0).u32(0).hex("cafebabe00000001")))
                .orThrow("COMMIT");
        assertNull(c.wcc().before());
        assertNull(c.wcc().after());
        assertEquals(w.verifier(), c.verifier());
    }

    private static String hexOf(Wire w) {
        return java.util.HexFormat.of().formatHex(w.bytes());
    }

    @Test
    void readdirResultsFollowTheEntryList() throws Exception {
        Wire w = Wire.of()
                .u32(0)
                .u32(0)
                .hex("0000000000000abc")
                .u32(1)
                .u64(11)
                .string(".")
                .u64(1)
                .u32(1)
                .u64(12)
                .string("entry-000")
                .u64(2)
                .u32(1)
                .u64(13)
                .string("entry-001")
                .u64(3)
                .u32(0)
                .u32(1);
        XdrDecoder d = in(w);
        DirList3 list = Nfs3ResultsXdr.readdirResults(d).orThrow("READDIR");
        assertTrue(d.atEnd());
        assertTrue(list.eof());
        assertEquals(0xabc, list.cookieVerifier());
        assertEquals(
                List.of(
                        new DirEntry3(11, ".", 1, null, null),
                        new DirEntry3(12, "entry-000", 2, null, null),
                        new DirEntry3(13, "entry-001", 3, null, null)),
                list.entries());

        DirList3 empty = Nfs3ResultsXdr.readdirResults(
                        in(Wire.of().u32(0).u32(0).u64(0).u32(0).u32(0)))
                .value();
        assertTrue(empty.entries().isEmpty());
        assertFalse(empty.eof());
    }

    @Test
    void readdirplusEntriesCarryAttributesAndHandles() throws Exception {
        Wire w = Wire.of()
                .u32(0)
                .u32(1)
                .fattr3(2, 4096, 2)
                .u64(7)
                .u32(1)
                .u64(12)
                .string("a")
                .u64(100)
                .u32(1)
                .fattr3(1, 3, 12)
                .u32(1)
                .opaque(new byte[] {1, 2, 3, 4})
                .u32(1)
                .u64(13)
                .string("b")
                .u64(200)
                .u32(0)
                .u32(0)
                .u32(0)
                .u32(1);
        DirList3 list = Nfs3ResultsXdr.readdirplusResults(in(w)).orThrow("READDIRPLUS");
        assertEquals(2, list.directoryAttributes().size() / 2048);
        assertEquals(2, list.entries().size());
        DirEntry3 a = list.entries().get(0);
        assertEquals(new FileHandle3(new byte[] {1, 2, 3, 4}), a.handle());
        assertEquals(3, a.attributes().size());
        assertNull(list.entries().get(1).handle());
        assertNull(list.entries().get(1).attributes());
    }

    @Test
    void aTruncatedEntryListIsAnXdrErrorNotALoop() {
        Wire w =
                Wire.of().u32(0).u32(0).u64(0).u32(1).u64(12).string("x").u64(1).u32(1);
        XdrException e = assertThrows(XdrException.class, () -> Nfs3ResultsXdr.readdirResults(in(w)));
        assertEquals(XdrException.Reason.TRUNCATED, e.reason());
    }
}
