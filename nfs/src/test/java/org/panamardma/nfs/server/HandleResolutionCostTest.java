package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.NfsStat3;

/**
 * What resolving a file handle costs (issue 25, item 6), counted in directory entries the server lists. On 5c5f9a1
 * every call with a handle of a removed file walked the tree again (up to 100,000 entries per call), and the path
 * cache, once full, was cleared whole.
 */
class HandleResolutionCostTest extends ServerFixtureTest {
    @Test
    void aRemovedFilesHandleCostsOneWalkThenIsStaleAtOnce() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        for (int d = 0; d < 20; d++) {
            Path sub = Files.createDirectories(fx.export.resolve("d" + d));
            for (int f = 0; f < 50; f++) {
                Files.writeString(sub.resolve("f" + f), "x");
            }
        }
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 gone = nfs.create(fx.root, "gone", 0644).handle();
        nfs.remove(fx.root, "gone");
        ExportFs fs = fx.server.exportFs();
        long before = fs.walkedEntries();
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs.getattr(gone)));
        long oneWalk = fs.walkedEntries() - before;
        assertTrue(oneWalk >= 1000, "the first call searched the tree: " + oneWalk + " entries");
        for (int i = 0; i < 200; i++) {
            assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs.getattr(gone)));
        }
        assertEquals(oneWalk, fs.walkedEntries() - before, "200 more calls listed nothing");
    }

    @Test
    void thePathCacheEvictsItsLeastRecentlyUsedEntriesOnly() {
        PathCache cache = new PathCache(100, 1 << 20);
        List<PathCache.Key> keys = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            PathCache.Key k = new PathCache.Key(i, i);
            keys.add(k);
            cache.put(k, "dir/file" + i);
            if (i >= 1) {
                cache.get(keys.get(0)); // the first file stays in use
            }
        }
        assertEquals(100, cache.size());
        assertEquals("dir/file0", cache.get(keys.get(0)), "in use: kept");
        assertNull(cache.get(keys.get(1)), "the least recently used went first");
        assertEquals("dir/file149", cache.get(keys.get(149)));
        PathCache chars = new PathCache(1000, 100);
        for (int i = 0; i < 20; i++) {
            chars.put(new PathCache.Key(i, 0), "0123456789");
        }
        assertEquals(10, chars.size(), "bounded by characters too");
        assertTrue(chars.chars() <= 100);
    }

    @Test
    void theNegativeCacheForgetsAFileSeenAgainOrAfterItsTime() throws Exception {
        StaleHandles stale = new StaleHandles(3, Duration.ofMillis(200));
        PathCache.Key a = new PathCache.Key(1, 1);
        stale.add(a);
        assertTrue(stale.isStale(a));
        stale.seen(a);
        assertTrue(!stale.isStale(a));
        stale.add(a);
        Thread.sleep(300);
        assertTrue(!stale.isStale(a), "its time is up");
        for (int i = 0; i < 10; i++) {
            stale.add(new PathCache.Key(i, 0));
        }
        assertEquals(3, stale.size(), "bounded");
    }

    @Test
    void aFullCacheStillResolvesTheFilesInUseWithoutAWalk() throws Exception {
        // an export whose cache holds 50 paths: look up 200 files, using the first all along
        Path export = Files.createDirectories(dir.resolve("export"));
        for (int i = 0; i < 200; i++) {
            Files.writeString(export.resolve("f" + i), "x");
        }
        try (ExportFs fs = ExportFs.open(export, new byte[32], 50, null)) {
            try (ExportFs.Node root = fs.root()) {
                FileHandle3 first;
                try (ExportFs.Node n = fs.lookup(root, "f0")) {
                    first = fs.handleOf(n);
                }
                for (int i = 1; i < 200; i++) {
                    try (ExportFs.Node n = fs.lookup(root, "f" + i)) {
                        assertTrue(n.stat().isRegular());
                    }
                    fs.resolve(first).close();
                }
                long walked = fs.walkedEntries();
                fs.resolve(first).close();
                assertEquals(walked, fs.walkedEntries(), "the file in use is still cached");
                assertEquals(50, fs.cachedPaths());
            }
        }
    }
}
