package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;

/**
 * MOUNT v3 (RFC 1813 appendix I) and port mapper / rpcbind (RFC 1833) codecs against hand-built bytes.
 */
class MountAndPortmapXdrTest {
    static XdrDecoder in(Wire w) {
        return new XdrDecoder(w.segment());
    }

    @Test
    void mntArgumentIsTheDirpath() {
        assertArrayEquals(
                Wire.of().hex("0000000f 2f7372762f70616e616d612d6e6673 00").bytes(),
                Nfs3XdrTest.encode(Mount3.dirpath("/srv/panama-nfs")));
        assertThrows(XdrException.class, () -> Nfs3XdrTest.encode(Mount3.dirpath("/".repeat(1025))));
    }

    @Test
    void mountres3OkCarriesHandleAndFlavors() {
        Wire ok = Wire.of()
                .u32(0)
                .opaque(new byte[] {1, 0, 1, 0, 0x4d, 0, 0, 0})
                .u32(2)
                .u32(1)
                .u32(390003);
        XdrDecoder d = in(ok);
        Mount3.MountResult r = (Mount3.MountResult) Mount3.decodeMountResult(d);
        assertTrue(d.atEnd());
        assertEquals(new FileHandle3(new byte[] {1, 0, 1, 0, 0x4d, 0, 0, 0}), r.root());
        assertEquals(List.of(1, 390003), r.authFlavors());
    }

    @Test
    void mountres3FailureIsItsStatus() {
        assertEquals(
                MountStat3.MNT3ERR_ACCES, Mount3.decodeMountResult(in(Wire.of().u32(13))));
        assertEquals(
                MountStat3.MNT3ERR_NOENT, Mount3.decodeMountResult(in(Wire.of().u32(2))));
        assertThrows(
                XdrException.class, () -> Mount3.decodeMountResult(in(Wire.of().u32(3))));
    }

    @Test
    void exportsAreNestedLinkedLists() {
        Wire w = Wire.of()
                .u32(1)
                .string("/srv/a")
                .u32(1)
                .string("*")
                .u32(1)
                .string("10.77.0.0/24")
                .u32(0)
                .u32(1)
                .string("/srv/b")
                .u32(0)
                .u32(0);
        assertEquals(
                List.of(
                        new Mount3.Export("/srv/a", List.of("*", "10.77.0.0/24")),
                        new Mount3.Export("/srv/b", List.of())),
                Mount3.decodeExports(in(w)));
    }

    @Test
    void getportMappingIsFourWords() {
        assertArrayEquals(
                Wire.of().hex("000186a5 00000003 00000006 00000000").bytes(),
                Nfs3XdrTest.encode(Portmap.mapping(new Portmap.Mapping(100005, 3, 6, 0))));
    }

    @Test
    void dumpIsALinkedListOfMappings() {
        Wire w = Wire.of()
                .u32(1)
                .u32(100000)
                .u32(2)
                .u32(6)
                .u32(111)
                .u32(1)
                .u32(100003)
                .u32(3)
                .u32(6)
                .u32(2049)
                .u32(0);
        assertEquals(
                List.of(new Portmap.Mapping(100000, 2, 6, 111), new Portmap.Mapping(100003, 3, 6, 2049)),
                Portmap.decodeDump(in(w)));
    }

    @Test
    void rpcbArgumentsAndUniversalAddresses() {
        assertArrayEquals(
                Wire.of().u32(100003).u32(3).string("tcp").string("").string("").bytes(),
                Nfs3XdrTest.encode(Portmap.rpcb(100003, 3, "tcp", "", "")));
        assertEquals(2049, Portmap.portOf("10.77.0.1.8.1"));
        assertEquals(20049, Portmap.portOf("0.0.0.0.78.81"));
        assertEquals(2049, Portmap.portOf("::.8.1"));
        assertThrows(IllegalArgumentException.class, () -> Portmap.portOf(""));
        assertThrows(IllegalArgumentException.class, () -> Portmap.portOf("1.2.3.4.256.1"));
        assertThrows(IllegalArgumentException.class, () -> Portmap.portOf("host.x.y"));
    }
}
