package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.RdmaException;

/**
 * A protection domain played on the host: counts registrations and deregistrations, keeps the live ones by rkey
 * (with their rights), refuses a second deregistration and a registration over freed memory as the verbs layer
 * does, and can be made to fail like an ibv_reg_mr over RLIMIT_MEMLOCK. {@link #reaches} answers what a server
 * holding a key could touch.
 */
public final class FakeRegistrar implements CallRegistrar {
    public record Live(MemorySegment segment, Set<Access> access) {}

    public final AtomicLong registrations = new AtomicLong();
    public final AtomicLong deregistrations = new AtomicLong();
    public final Map<Integer, Live> live = new ConcurrentHashMap<>();
    /** The size of every registration made, in order. */
    public final List<Long> sizes = new CopyOnWriteArrayList<>();

    private final AtomicInteger nextRkey = new AtomicInteger(0x1000);
    public volatile boolean failNext;
    /** Registrations to let through before the next one fails; negative: none fails. */
    private final AtomicInteger failAfter = new AtomicInteger(-1);

    /** The registration after the next {@code n} fails. */
    public void failAfter(int n) {
        failAfter.set(n);
    }

    @Override
    public Registration register(MemorySegment segment, LocalRights rights) throws RdmaException {
        return register(segment, rights.access());
    }

    @Override
    public Registration registerForCall(MemorySegment segment, ChunkAccess access) throws RdmaException {
        return register(segment, access.registrationRights());
    }

    /** ibv_reg_mr with any rights, as a device takes them. */
    public Registration register(MemorySegment segment, Set<Access> access) throws RdmaException {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered; got a heap segment");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("cannot register memory whose arena is already closed");
        }
        return make(segment, access);
    }

    private Registration make(MemorySegment segment, Set<Access> access) throws RdmaException {
        if (failAfter.get() >= 0 && failAfter.getAndDecrement() == 0) {
            failNext = true;
        }
        if (failNext) {
            failNext = false;
            throw new RdmaException("ibv_reg_mr(" + segment.byteSize() + " bytes, " + access + ")", 12);
        }
        registrations.incrementAndGet();
        sizes.add(segment.byteSize());
        int rkey = nextRkey.getAndIncrement();
        live.put(rkey, new Live(segment, access.isEmpty() ? Set.of() : EnumSet.copyOf(access)));
        return new Registration() {
            private boolean gone;

            @Override
            public MemorySegment segment() {
                return segment;
            }

            @Override
            public int rkey() {
                return rkey;
            }

            @Override
            public synchronized void deregister() {
                if (gone) {
                    return;
                }
                gone = true;
                if (live.remove(rkey) == null) {
                    throw new AssertionError("rkey " + rkey + " deregistered twice");
                }
                deregistrations.incrementAndGet();
            }
        };
    }

    /**
     * Whether a server's access of {@code length} bytes at {@code address} with {@code rkey} and right {@code right}
     * would succeed: the key is live, has the right, and covers the range.
     */
    public boolean reaches(int rkey, long address, long length, Access right) {
        Live l = live.get(rkey);
        if (l == null || !l.access().contains(right)) {
            return false;
        }
        long base = l.segment().address();
        return address >= base && address + length <= base + l.segment().byteSize();
    }

    /** The live registration covering [address, address + length) with {@code rkey}, or an AssertionError. */
    public Live covering(int rkey, long address, long length) {
        Live l = live.get(rkey);
        if (l == null) {
            throw new AssertionError("no live registration with rkey " + rkey);
        }
        long base = l.segment().address();
        if (address < base || address + length > base + l.segment().byteSize()) {
            throw new AssertionError(
                    "rkey " + rkey + " does not cover [0x" + Long.toHexString(address) + ", +" + length + ")");
        }
        return l;
    }
}
