package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.panamardma.nfs.NfsTime3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Fuzzes {@link Sattr3#decode} (nfs/FUZZING.md), the attributes every SETATTR, CREATE, MKDIR, SYMLINK and MKNOD
 * carries, and what the server makes of them: the mode a caller of a shared identity may set has no set-id bit.
 * The typed refusal is {@link XdrException}; what decodes must re-encode to the bytes read, and a time's seconds
 * and nanoseconds are unsigned 32-bit values.
 */
class Sattr3FuzzTest {
    /** A few boxed values and records: a constant, 64 KiB with the refusal's exception. */
    private static final long BOUND = 64 << 10;

    @FuzzTest
    void decode(byte[] input) throws Exception {
        Sattr3[] decoded = new Sattr3[1];
        long[] read = new long[1];
        AllocationBudget.within("Sattr3.decode", BOUND, () -> {
            XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(input));
            try {
                decoded[0] = Sattr3.decode(in);
                read[0] = in.position();
            } catch (XdrException refused) {
                decoded[0] = null;
            }
        });
        Sattr3 s = decoded[0];
        if (s == null) {
            return;
        }
        for (Sattr3.SetTime t : new Sattr3.SetTime[] {s.atime(), s.mtime()}) {
            NfsTime3 time = t.time();
            if (time != null) {
                assertTrue(time.seconds() >= 0 && time.seconds() <= 0xFFFFFFFFL);
                assertTrue(time.nanoseconds() >= 0 && time.nanoseconds() <= 0xFFFFFFFFL);
            }
        }
        byte[] again = new byte[(int) read[0]];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(again));
        s.encodeTo(out);
        assertEquals(read[0], out.position());
        assertArrayEquals(Arrays.copyOf(input, (int) read[0]), again, "sattr3 re-encodes to other bytes");
        if (s.mode() != null) {
            Caller shared = new Caller(65534, 65534, new int[0], "", true, ExportOptions.DEFAULTS);
            assertEquals(0, shared.permittedMode(s.mode()) & 06000, "no set-id bit for a shared identity");
            Caller own = new Caller(1000, 1000, new int[0], "", false, ExportOptions.DEFAULTS);
            assertEquals(s.mode(), own.permittedMode(s.mode()));
        }
    }
}
