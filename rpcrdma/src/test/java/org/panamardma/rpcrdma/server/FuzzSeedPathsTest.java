package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;

/**
 * The committed seeds of the server-side fuzz targets are worth fuzzing from (FUZZING.md): replayed through the
 * handler over {@link FuzzClientMemory}, they reach every way of answering and every way a call arrives, so the
 * fuzzer starts inside the chunk logic rather than at its refusals.
 */
class FuzzSeedPathsTest {
    private static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 1024, 8, 64 << 10, 64 << 10, 4);

    private static List<byte[]> seeds() throws IOException, URISyntaxException {
        URL dir = FuzzSeedPathsTest.class.getResource("RpcRdmaCallHandlerFuzzTestInputs/handle");
        assertTrue(dir != null, "seed directory on the class path");
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            return files.filter(f -> f.getFileName().toString().startsWith("seed-"))
                    .sorted()
                    .map(f -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            return in.readAllBytes();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .toList();
        }
    }

    @Test
    void handlerSeedsReachEveryReplyPathAndCallPath() throws Exception {
        Set<ReplyPath> paths = EnumSet.noneOf(ReplyPath.class);
        ServerStatistics stats = new ServerStatistics();
        for (byte[] seed : seeds()) {
            RpcRdmaCallHandler handler = new RpcRdmaCallHandler(
                    EchoProgram.dispatcher(),
                    new RpcRdmaHeaderDecoder(),
                    SETTINGS,
                    FuzzClientMemory.transfers(),
                    stats,
                    ConfigRdmaProgram.INSTANCE);
            paths.add(handler.handle(MemorySegment.ofArray(seed), MemorySegment.ofArray(new byte[1024]))
                    .path());
        }
        assertEquals(
                EnumSet.of(
                        ReplyPath.INLINE,
                        ReplyPath.WRITE_LIST,
                        ReplyPath.REPLY_CHUNK,
                        ReplyPath.ERR_VERS,
                        ReplyPath.ERR_CHUNK,
                        ReplyPath.DROPPED),
                paths,
                "reply paths reached by the seeds");
        assertTrue(
                stats.inlineCalls() > 0 && stats.readChunkCalls() > 0 && stats.positionZeroCalls() > 0,
                stats.toString());
    }
}
