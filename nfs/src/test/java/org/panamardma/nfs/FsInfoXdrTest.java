package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;

/**
 * FSINFO (RFC 1813 section 3.3.19) against bytes written by hand from the RFC's layout:
 * <pre>
 * struct FSINFO3resok {
 *      post_op_attr obj_attributes;
 *      uint32       rtmax;  uint32 rtpref;  uint32 rtmult;
 *      uint32       wtmax;  uint32 wtpref;  uint32 wtmult;
 *      uint32       dtpref;
 *      size3        maxfilesize;
 *      nfstime3     time_delta;
 *      uint32       properties;
 * };
 * struct FSINFO3resfail { post_op_attr obj_attributes; };
 * </pre>
 */
class FsInfoXdrTest {
    static final FileHandle3 FH = Nfs3XdrTest.FH;

    /** A knfsd-like answer, word by word in hex: no attributes, 512 KiB sizes, 4 KiB multiples, 1 ns granularity. */
    static final String KNFSD_LIKE = "00000000" // NFS3_OK
            + "00000000" // obj_attributes: attributes_follow FALSE
            + "00080000 00080000 00001000" // rtmax 524288, rtpref 524288, rtmult 4096
            + "00080000 00080000 00001000" // wtmax, wtpref, wtmult
            + "00001000" // dtpref 4096
            + "7fffffff ffffffff" // maxfilesize 2^63-1
            + "00000000 00000001" // time_delta 0 s 1 ns
            + "0000001b"; // FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME

    @Test
    void argumentsAreTheRootHandle() {
        assertArrayEquals(Wire.of().hex("00000005 0102030405 000000").bytes(), Nfs3XdrTest.encode(Nfs3Xdr.fsinfo(FH)));
        assertEquals(19, Nfs3.PROC_FSINFO);
    }

    @Test
    void resultsDecodeEveryField() throws Exception {
        XdrDecoder d = new XdrDecoder(Wire.of().hex(KNFSD_LIKE).segment());
        FsInfo info = Nfs3ResultsXdr.fsinfoResults(d).orThrow("FSINFO");
        assertTrue(d.atEnd(), "the whole FSINFO3resok is consumed");
        assertEquals(
                new FsInfo(
                        null,
                        524288,
                        524288,
                        4096,
                        524288,
                        524288,
                        4096,
                        4096,
                        Long.MAX_VALUE,
                        new NfsTime3(0, 1),
                        0x1b),
                info);
        assertTrue(info.has(FsInfo.FSF3_LINK)
                && info.has(FsInfo.FSF3_SYMLINK)
                && info.has(FsInfo.FSF3_HOMOGENEOUS)
                && info.has(FsInfo.FSF3_CANSETTIME));
        assertEquals(524288, info.maxReadSize());
        assertEquals(524288, info.preferredWriteSize());
    }

    @Test
    void resultsWithAttributesAndDistinctValuesInEveryField() throws Exception {
        Wire w = Wire.of()
                .u32(0)
                .u32(1)
                .fattr3(2, 4096, 7) // NFS3_OK, obj_attributes present (a directory)
                .u32(1_048_576)
                .u32(65_536)
                .u32(512) // rtmax, rtpref, rtmult
                .u32(262_144)
                .u32(32_768)
                .u32(1024) // wtmax, wtpref, wtmult
                .u32(8192) // dtpref
                .u64(0xFFFF_FFFF_FFFF_FFFFL) // maxfilesize: all 64 bits
                .u32(1)
                .u32(0) // time_delta 1 s
                .u32(0x0008); // FSF3_HOMOGENEOUS only
        XdrDecoder d = new XdrDecoder(w.segment());
        FsInfo info = Nfs3ResultsXdr.fsinfoResults(d).orThrow("FSINFO");
        assertTrue(d.atEnd());
        assertEquals(FileType3.NF3DIR, info.attributes().type());
        assertEquals(7, info.attributes().fileid());
        assertEquals(1_048_576, info.rtmax());
        assertEquals(65_536, info.rtpref());
        assertEquals(512, info.rtmult());
        assertEquals(262_144, info.wtmax());
        assertEquals(32_768, info.wtpref());
        assertEquals(1024, info.wtmult());
        assertEquals(8192, info.dtpref());
        assertEquals("18446744073709551615", Long.toUnsignedString(info.maxfilesize()));
        assertEquals(new NfsTime3(1, 0), info.timeDelta());
        assertTrue(info.has(FsInfo.FSF3_HOMOGENEOUS));
        assertFalse(info.has(FsInfo.FSF3_LINK));
        assertFalse(info.has(FsInfo.FSF3_CANSETTIME));
        assertEquals(65_536, info.preferredReadSize());
        assertEquals(32_768, info.preferredWriteSize());
    }

    @Test
    void encodingGivesTheSameBytes() {
        byte[] wire = Wire.of().hex(KNFSD_LIKE).bytes();
        FsInfo info = Nfs3ResultsXdr.fsinfoResults(
                        new XdrDecoder(Wire.of().hex(KNFSD_LIKE).segment()))
                .value();
        byte[] body = Nfs3XdrTest.encode(info::encodeTo);
        assertArrayEquals(java.util.Arrays.copyOfRange(wire, 4, wire.length), body);
    }

    @Test
    void unsignedMaximaAndOddPreferencesAreClamped() {
        Wire w = Wire.of()
                .u32(0)
                .u32(0)
                .u32(0xFFFF_FFFFL)
                .u32(0)
                .u32(1)
                .u32(0x8000_0000L)
                .u32(0xFFFF_FFFFL)
                .u32(1)
                .u32(0)
                .u64(1)
                .u32(0)
                .u32(0)
                .u32(0);
        FsInfo info = Nfs3ResultsXdr.fsinfoResults(new XdrDecoder(w.segment())).value();
        assertEquals(0xFFFF_FFFFL, info.rtmax(), "uint32 keeps its high bit");
        assertEquals(Integer.MAX_VALUE, info.maxReadSize(), "one call carries at most 2^31-1 bytes");
        assertEquals(Integer.MAX_VALUE, info.preferredReadSize(), "rtpref 0: use rtmax");
        assertEquals(0x8000_0000L, info.wtmax());
        assertEquals(Integer.MAX_VALUE, info.preferredWriteSize(), "wtpref above wtmax: wtmax");
        assertEquals(100, new FsInfo(null, 1, 1, 1, 100, 4096, 1, 1, 1, new NfsTime3(0, 0), 0).preferredWriteSize());
    }

    @Test
    void failureCarriesOnlyTheAttributes() {
        XdrDecoder d = new XdrDecoder(Wire.of().u32(70).u32(1).fattr3(2, 0, 1).segment()); // NFS3ERR_STALE
        Nfs3Result<FsInfo> r = Nfs3ResultsXdr.fsinfoResults(d);
        assertEquals(NfsStat3.NFS3ERR_STALE, r.status());
        assertNull(r.value());
        assertTrue(d.atEnd(), "FSINFO3resfail's post_op_attr is consumed");
        NfsException e = assertThrows(NfsException.class, () -> r.orThrow("FSINFO"));
        assertEquals(NfsStat3.NFS3ERR_STALE, e.status());
    }

    @Test
    void aTruncatedAnswerIsAnXdrError() {
        String cut = KNFSD_LIKE.substring(0, KNFSD_LIKE.length() - 8); // without properties
        XdrException e = assertThrows(
                XdrException.class,
                () -> Nfs3ResultsXdr.fsinfoResults(
                        new XdrDecoder(Wire.of().hex(cut).segment())));
        assertEquals(XdrException.Reason.TRUNCATED, e.reason());
    }
}
