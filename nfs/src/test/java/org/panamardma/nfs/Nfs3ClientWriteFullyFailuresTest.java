package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;

/**
 * {@link Nfs3Client#writeFully} against a scripted server that misbehaves: a WRITE that writes nothing, one that
 * claims more than it was given, and a write verifier that changes between UNSTABLE WRITEs (a server restart that may
 * have lost the data): each is an {@link IOException} and no further WRITE is sent.
 */
class Nfs3ClientWriteFullyFailuresTest {
    static final FileHandle3 FH = StandInNfs3Server.FILE;

    /** Answers FSINFO with wtpref 1,000 and WRITE with the count and verifier the script gives for the n-th WRITE. */
    static final class ScriptedServer implements RpcTransport {
        final IntUnaryOperator countOfWrite;
        final IntUnaryOperator verifierOfWrite;
        final List<Integer> procedures = new ArrayList<>();
        int writes;

        ScriptedServer(IntUnaryOperator countOfWrite, IntUnaryOperator verifierOfWrite) {
            this.countOfWrite = countOfWrite;
            this.verifierOfWrite = verifierOfWrite;
        }

        @Override
        public <T> T call(
                int program,
                int version,
                int procedure,
                OpaqueAuth credential,
                XdrEncodable arguments,
                ReplyReader<T> results,
                Duration timeout) {
            procedures.add(procedure);
            XdrEncoder r = new XdrEncoder(MemorySegment.ofArray(new byte[1024]));
            r.putInt(0);
            switch (procedure) {
                case Nfs3.PROC_FSINFO ->
                    StandInNfs3Server.limits(1000, 1000, 4000, 1000).encodeTo(r);
                case Nfs3.PROC_WRITE -> {
                    int n = writes++;
                    r.putBoolean(false)
                            .putBoolean(false)
                            .putInt(countOfWrite.applyAsInt(n))
                            .putInt(StableHow.UNSTABLE.code())
                            .putHyper(verifierOfWrite.applyAsInt(n));
                }
                default -> throw new AssertionError("procedure " + procedure);
            }
            return results.read(new XdrDecoder(r.written(0)), ReplyPlacement.INLINE);
        }

        @Override
        public String peer() {
            return "scripted";
        }

        @Override
        public void close() {}
    }

    static IOException writeFully(ScriptedServer server) {
        Nfs3Client nfs = new Nfs3Client(server, OpaqueAuth.NONE, Duration.ofSeconds(1));
        return assertThrows(
                IOException.class,
                () -> nfs.writeFully(FH, 0, MemorySegment.ofArray(new byte[3500]), StableHow.UNSTABLE));
    }

    @Test
    void aWriteOfNothingStopsIt() {
        ScriptedServer server = new ScriptedServer(n -> n == 1 ? 0 : 1000, n -> 7);
        IOException e = writeFully(server);
        assertTrue(e.getMessage().contains("wrote 0 bytes"), e.getMessage());
        assertEquals(List.of(Nfs3.PROC_FSINFO, Nfs3.PROC_WRITE, Nfs3.PROC_WRITE), server.procedures);
    }

    @Test
    void aCountAboveWhatWasSentStopsIt() {
        ScriptedServer server = new ScriptedServer(n -> 1001, n -> 7);
        IOException e = writeFully(server);
        assertTrue(e.getMessage().contains("wrote 1001 bytes"), e.getMessage());
        assertEquals(List.of(Nfs3.PROC_FSINFO, Nfs3.PROC_WRITE), server.procedures);
    }

    @Test
    void aChangedVerifierBetweenUnstableWritesStopsIt() {
        ScriptedServer server = new ScriptedServer(n -> 1000, n -> n < 2 ? 7 : 8); // restarted before the third
        IOException e = writeFully(server);
        assertTrue(e.getMessage().contains("verifier") && e.getMessage().contains("after 2000 bytes"), e.getMessage());
        assertEquals(List.of(Nfs3.PROC_FSINFO, Nfs3.PROC_WRITE, Nfs3.PROC_WRITE, Nfs3.PROC_WRITE), server.procedures);
    }

    @Test
    void theScriptedServerWithoutFaultsTakesFourWrites() throws Exception {
        ScriptedServer server = new ScriptedServer(n -> n == 3 ? 500 : 1000, n -> 7);
        Nfs3Client nfs = new Nfs3Client(server, OpaqueAuth.NONE, Duration.ofSeconds(1));
        assertEquals(
                new WriteFullyResult(3500, 4, StableHow.UNSTABLE, 7),
                nfs.writeFully(FH, 0, MemorySegment.ofArray(new byte[3500]), StableHow.UNSTABLE));
    }
}
