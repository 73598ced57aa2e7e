package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Nfs3Client} keeps to the server's FSINFO limits (RFC 1813 section 3.3.19), against the stand-in server over
 * TCP reporting small limits, with the stand-in's log of what arrived: a WRITE above wtmax is refused before
 * anything is sent, writeFully splits into wtpref-sized WRITEs (and carries on after short ones), READs never ask for
 * more than rtmax, and the limits are asked for once per client however many threads start at once.
 */
class Nfs3ClientLimitsTest {
    static final FileHandle3 FILE = StandInNfs3Server.FILE;

    final byte[] content = new byte[300_000];
    final List<String> log = new CopyOnWriteArrayList<>();
    StandInOverTcp standIn;
    Nfs3Client nfs;

    void start(FsInfo limits, int writeCap) throws Exception {
        new Random(1).nextBytes(content);
        standIn = StandInOverTcp.start(
                StandInNfs3Server.dispatcher(content, new CopyOnWriteArrayList<>(), limits, writeCap, log),
                "limits-test");
        nfs = standIn.nfs;
    }

    @AfterEach
    void stop() {
        if (standIn != null) {
            standIn.close();
        }
    }

    static byte[] random(int size, int seed) {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        return data;
    }

    @Test
    void aWriteAboveWtmaxIsRefusedAndNothingIsSent() throws Exception {
        start(StandInNfs3Server.limits(1 << 20, 1 << 20, 100_000, 100_000), Integer.MAX_VALUE);
        byte[] before = content.clone();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> nfs.write(FILE, 0, MemorySegment.ofArray(random(100_001, 2)), StableHow.FILE_SYNC));
        assertTrue(
                e.getMessage().contains("100001 bytes")
                        && e.getMessage().contains("100000 bytes per WRITE")
                        && e.getMessage().contains("wtmax")
                        && e.getMessage().contains("writeFully"),
                e.getMessage());
        assertEquals(List.of("FSINFO"), log, "the limits were asked for; no WRITE reached the server");
        assertArrayEquals(before, content);

        byte[] exactly = random(100_000, 3);
        assertEquals(
                100_000,
                nfs.write(FILE, 0, MemorySegment.ofArray(exactly), StableHow.FILE_SYNC)
                        .count());
        assertEquals(List.of("FSINFO", "WRITE 100000@0"), log, "wtmax itself is allowed; FSINFO asked once");
        assertArrayEquals(exactly, java.util.Arrays.copyOf(content, 100_000));
    }

    @Test
    void writeFullySplitsIntoWtprefSizedWrites() throws Exception {
        start(StandInNfs3Server.limits(1 << 20, 1 << 20, 100_000, 30_000), Integer.MAX_VALUE);
        byte[] data = random(200_000, 4);
        WriteFullyResult r = nfs.writeFully(FILE, 10_000, MemorySegment.ofArray(data), StableHow.UNSTABLE);
        assertEquals(new WriteFullyResult(200_000, 7, StableHow.UNSTABLE, 0x1234), r);
        List<String> expected = new ArrayList<>(List.of("FSINFO"));
        for (int at = 0; at < 180_000; at += 30_000) {
            expected.add("WRITE 30000@" + (10_000 + at));
        }
        expected.add("WRITE 20000@190000");
        assertEquals(expected, log);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(content, 10_000, 210_000));
        assertEquals(
                new WriteFullyResult(0, 0, StableHow.FILE_SYNC, 0),
                nfs.writeFully(FILE, 0, MemorySegment.NULL, StableHow.UNSTABLE),
                "nothing to write, nothing sent");
        assertEquals(expected.size(), log.size());
    }

    @Test
    void writeFullyCarriesOnAfterShortWrites() throws Exception {
        start(StandInNfs3Server.limits(1 << 20, 1 << 20, 100_000, 30_000), 25_000); // stores 25,000 of each WRITE
        byte[] data = random(100_000, 5);
        WriteFullyResult r = nfs.writeFully(FILE, 0, MemorySegment.ofArray(data), StableHow.FILE_SYNC);
        assertEquals(100_000, r.count());
        assertEquals(4, r.calls());
        assertEquals(
                List.of("FSINFO", "WRITE 30000@0", "WRITE 30000@25000", "WRITE 30000@50000", "WRITE 25000@75000"),
                log,
                "each WRITE resumes where the server's count ended");
        assertArrayEquals(data, java.util.Arrays.copyOf(content, 100_000));
    }

    @Test
    void readsNeverAskForMoreThanRtmax() throws Exception {
        start(StandInNfs3Server.limits(50_000, 40_000, 1 << 20, 1 << 20), Integer.MAX_VALUE);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment into = arena.allocate(content.length);
            ReadResult one = nfs.read(FILE, 0, into);
            assertEquals(50_000, one.count(), "a buffer larger than rtmax gets an rtmax READ");
            assertEquals(List.of("FSINFO", "READ 50000@0"), log);

            log.clear();
            assertEquals(content.length, nfs.readFully(FILE, 0, into, 1 << 20));
            assertArrayEquals(content, into.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(6, log.size(), log::toString);
            for (int i = 0; i < 6; i++) {
                assertEquals("READ 50000@" + 50_000 * i, log.get(i), "maxPerCall above rtmax is cut to rtmax");
            }

            log.clear();
            into.fill((byte) 0);
            assertEquals(content.length, nfs.readFully(FILE, 0, into));
            assertArrayEquals(content, into.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(8, log.size(), "READs of rtpref 40,000: " + log);
            assertEquals("READ 40000@0", log.getFirst());
            assertEquals("READ 20000@280000", log.get(7), "the rest");
        }
    }

    @Test
    void theLimitsAreAskedForOnceHoweverManyThreadsStart() throws Exception {
        start(StandInNfs3Server.LIMITS, Integer.MAX_VALUE);
        assertTrue(nfs.limits().isEmpty(), "nothing asked yet");
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads);
                Arena arena = Arena.ofShared()) {
            List<Future<ReadResult>> reads = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                MemorySegment into = arena.allocate(1000);
                long offset = 1000L * i;
                reads.add(pool.submit(() -> {
                    go.await();
                    return nfs.read(FILE, offset, into);
                }));
            }
            go.countDown();
            for (int i = 0; i < threads; i++) {
                ReadResult r = reads.get(i).get();
                assertArrayEquals(
                        java.util.Arrays.copyOfRange(content, 1000 * i, 1000 * i + 1000),
                        r.data().toArray(ValueLayout.JAVA_BYTE));
            }
        }
        assertEquals(1, log.stream().filter("FSINFO"::equals).count(), log::toString);
        assertEquals(threads + 1, log.size());
        assertEquals(StandInNfs3Server.LIMITS, nfs.limits().orElseThrow());
    }

    @Test
    void anExplicitFsinfoReturnsTheAnswerAndSetsTheLimits() throws Exception {
        FsInfo limits = StandInNfs3Server.limits(70_000, 60_000, 80_000, 50_000);
        start(limits, Integer.MAX_VALUE);
        assertEquals(limits, nfs.fsinfo(StandInNfs3Server.DIR));
        assertEquals(limits, nfs.limits().orElseThrow());
        assertThrows(
                IllegalArgumentException.class,
                () -> nfs.write(FILE, 0, MemorySegment.ofArray(new byte[80_001]), StableHow.UNSTABLE));
        assertEquals(List.of("FSINFO"), log, "the write used the limits already known");
    }

    @Test
    void unusableLimitsFailTheCallAndSendNothing() throws Exception {
        start(StandInNfs3Server.limits(1 << 20, 1 << 20, 0, 0), Integer.MAX_VALUE);
        IOException e = assertThrows(
                IOException.class, () -> nfs.write(FILE, 0, MemorySegment.ofArray(new byte[10]), StableHow.UNSTABLE));
        assertTrue(e.getMessage().contains("wtmax 0"), e.getMessage());
        assertTrue(nfs.limits().isEmpty(), "not kept");
        assertEquals(List.of("FSINFO"), log);
    }
}
