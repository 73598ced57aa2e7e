import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;

/**
 * Issue 26: what the RPC client's per-call exposure costs on a device without sound memory windows (rxe, siw): one
 * ibv_reg_mr and one ibv_dereg_mr of a chunk's size per chunk per call (ChunkExposure.PER_CALL_REGISTRATION). Times
 * COUNT of each, of SIZE bytes cycling over 16 buffers, with a Write chunk's rights (local and remote write) and a
 * Read chunk's (remote read), three rounds each (the first pays the JIT and the page faults).
 * Usage (testbed guest, from the work tree's root, after ./mvnw -pl benchmarks -am package -DskipTests):
 *   java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *       benchmarks/perftest/RegistrationCost.java rxe0 262144 200
 */
public final class RegistrationCost {
    public static void main(String[] args) throws Exception {
        String device = args[0];
        long size = Long.parseLong(args[1]);
        int count = Integer.parseInt(args[2]);
        try (Context context = Context.open(device);
                ProtectionDomain pd = context.allocateProtectionDomain();
                Arena arena = Arena.ofShared()) {
            MemorySegment buffers = arena.allocate(size * 16, 4096);
            buffers.fill((byte) 1); // the pages exist before the first registration pins them
            Set<Access> writeChunk = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            Set<Access> readChunk = EnumSet.of(Access.REMOTE_READ);
            for (Set<Access> access : java.util.List.of(writeChunk, readChunk)) {
                for (int round = 1; round <= 3; round++) {
                    long reg = 0, dereg = 0;
                    for (int i = 0; i < count; i++) {
                        MemorySegment chunk = buffers.asSlice((i % 16) * size, size);
                        long t0 = System.nanoTime();
                        MemoryRegion mr = pd.register(chunk, access);
                        long t1 = System.nanoTime();
                        mr.close();
                        dereg += System.nanoTime() - t1;
                        reg += t1 - t0;
                    }
                    System.out.printf(java.util.Locale.ROOT, "%s %s %d bytes, round %d: ibv_reg_mr %.1f us, "
                            + "ibv_dereg_mr %.1f us (mean of %d)%n", device, access, size, round,
                            reg / 1e3 / count, dereg / 1e3 / count, count);
                }
            }
        }
    }
}
