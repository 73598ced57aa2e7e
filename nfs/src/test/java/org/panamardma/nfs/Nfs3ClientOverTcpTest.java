package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.oncrpc.tcp.TcpRpcServer;

/**
 * The client end to end over a real TCP connection, against a stand-in NFSv3 server (this project's
 * {@link TcpRpcServer}) holding one file of 300,000 bytes and a directory of 50 entries: what the stand-in
 * receives and what the client reads back are compared byte for byte. The knfsd tests do the same against Linux.
 */
class Nfs3ClientOverTcpTest {
    static final FileHandle3 FILE = StandInNfs3Server.FILE;
    static final FileHandle3 DIR = StandInNfs3Server.DIR;
    static final int ENTRIES = StandInNfs3Server.ENTRIES;

    final byte[] content = new byte[300_000];
    final List<AuthSysParms> credentials = new CopyOnWriteArrayList<>();
    StandInOverTcp standIn;
    Nfs3Client nfs;

    @BeforeEach
    void start() throws Exception {
        new Random(1).nextBytes(content);
        standIn = StandInOverTcp.start(StandInNfs3Server.dispatcher(content, credentials), "host-test");
        nfs = standIn.nfs;
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    @Test
    void nullAndGetattrWithAuthSysRoot() throws Exception {
        nfs.ping();
        assertEquals(content.length, nfs.getattr(FILE).size());
        assertEquals(1, credentials.size());
        assertEquals(0, credentials.getFirst().uid());
        assertEquals(0, credentials.getFirst().gid());
        assertEquals("host-test", credentials.getFirst().machineName());
    }

    @Test
    void readFullyIntoAConfinedSegmentMatchesEveryByte() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment into = arena.allocate(content.length + 100);
            assertEquals(content.length, nfs.readFully(FILE, 0, into, 64 << 10));
            assertArrayEquals(content, into.asSlice(0, content.length).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void writeSendsTheDataFromTheCallersMemory() throws Exception {
        byte[] data = new byte[200_000]; // above TcpRpcClient's gather threshold: written from this array
        new Random(2).nextBytes(data);
        WriteResult r = nfs.write(FILE, 50_000, MemorySegment.ofArray(data), StableHow.DATA_SYNC);
        assertEquals(data.length, r.count());
        assertEquals(StableHow.DATA_SYNC, r.committed());
        assertEquals(0x1234, r.verifier());
        byte[] stored = new byte[data.length];
        System.arraycopy(content, 50_000, stored, 0, data.length);
        assertArrayEquals(data, stored);
    }

    @Test
    void listDirectoryFollowsCookiesAcrossBatches() throws Exception {
        List<DirEntry3> entries = nfs.listDirectory(DIR, 4096, false);
        assertEquals(ENTRIES, entries.size());
        for (int i = 0; i < ENTRIES; i++) {
            assertEquals(new DirEntry3(1000 + i, "e" + i, i + 1, null, null), entries.get(i));
        }
    }

    @Test
    void anRpcLevelErrorIsAnIoException() {
        RpcReplyException e = assertThrows(RpcReplyException.class, () -> nfs.commit(FILE, 0, 0));
        assertEquals(AcceptStat.PROC_UNAVAIL, e.acceptStat());
        assertTrue(e.getMessage().contains("PROC_UNAVAIL"), e.getMessage());
    }
}
