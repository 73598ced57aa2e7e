package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * The client end to end over a real TCP connection, against a stand-in NFSv3 server (this project's
 * {@link TcpRpcServer}) holding one file of 300,000 bytes and a directory of 50 entries: what the stand-in
 * receives and what the client reads back are compared byte for byte. The knfsd tests do the same against Linux.
 */
class Nfs3ClientOverTcpTest {
    static final FileHandle3 FILE = new FileHandle3(new byte[] {'f', 'i', 'l', 'e'});
    static final FileHandle3 DIR = new FileHandle3(new byte[] {'d', 'i', 'r'});
    static final int ENTRIES = 50;

    final byte[] content = new byte[300_000];
    final List<AuthSysParms> credentials = new CopyOnWriteArrayList<>();
    TcpRpcServer server;
    TcpRpcTransport transport;
    Nfs3Client nfs;

    private XdrEncodable fattr(long size) {
        return out -> new Fattr3(FileType3.NF3REG, 0644, 1, 0, 0, size, size, 0, 0, 1, 2, new NfsTime3(1, 0),
                new NfsTime3(2, 0), new NfsTime3(3, 0)).encodeTo(out);
    }

    private record ReadArgs(FileHandle3 fh, long offset, int count) {
    }

    private record WriteArgs(FileHandle3 fh, long offset, int stable, byte[] data) {
    }

    private record DirArgs(FileHandle3 fh, long cookie, int count) {
    }

    @BeforeEach
    void start() throws Exception {
        new Random(1).nextBytes(content);
        RpcDispatcher dispatcher = RpcDispatcher.builder()
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_NULL, in -> Boolean.TRUE, (a, call) -> XdrEncodable.VOID)
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_GETATTR, FileHandle3::decode, (fh, call) -> {
                    credentials.add(AuthSysParms.from(call.credential()));
                    return out -> {
                        out.putInt(0);
                        fattr(content.length).encodeTo(out);
                    };
                })
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_READ,
                        in -> new ReadArgs(FileHandle3.decode(in), in.getHyper(), in.getInt()),
                        (a, call) -> out -> {
                            int n = (int) Math.max(0, Math.min(a.count(), content.length - a.offset()));
                            out.putInt(0).putBoolean(false).putInt(n).putBoolean(a.offset() + n >= content.length);
                            out.putEligibleOpaque(MemorySegment.ofArray(content).asSlice(a.offset(), n), n);
                        })
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_WRITE,
                        in -> new WriteArgs(FileHandle3.decode(in), in.getHyper(), skipCount(in), in.getOpaqueBytes(1 << 20)),
                        (a, call) -> {
                            System.arraycopy(a.data(), 0, content, (int) a.offset(), a.data().length);
                            return out -> out.putInt(0).putBoolean(false).putBoolean(false)
                                    .putInt(a.data().length).putInt(a.stable()).putHyper(0x1234);
                        })
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_READDIR,
                        in -> new DirArgs(FileHandle3.decode(in), in.getHyper(), skipVerifierThenCount(in)),
                        (a, call) -> out -> {
                            out.putInt(0).putBoolean(false).putHyper(99);
                            long next = a.cookie();
                            for (int i = 0; i < 20 && next < ENTRIES; i++, next++) { // 20 per batch
                                out.putBoolean(true).putHyper(1000 + next).putString("e" + next, 255).putHyper(next + 1);
                            }
                            out.putBoolean(false).putBoolean(next == ENTRIES);
                        })
                .build();
        server = TcpRpcServer.builder(dispatcher).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .start();
        transport = TcpRpcTransport.connect(server.address(), 4 << 20);
        nfs = new Nfs3Client(transport, Nfs3Client.authSys("host-test", 0, 0), Duration.ofSeconds(20));
    }

    private static int skipCount(XdrDecoder in) {
        in.getInt(); // count, repeated by the opaque's length
        return in.getInt();
    }

    private static int skipVerifierThenCount(XdrDecoder in) {
        in.getHyper();
        return in.getInt();
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
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
