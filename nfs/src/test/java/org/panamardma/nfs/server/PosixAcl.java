package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Sets a file's POSIX access ACL as setfacl(1) does, without it (the test machines need not have the acl package):
 * the {@code system.posix_acl_access} extended attribute in the kernel's format (include/uapi/linux/posix_acl_xattr.h:
 * a version, then entries of tag, permission and id, sorted by tag and id).
 */
final class PosixAcl {
    static final short USER_OBJ = 0x01;
    static final short USER = 0x02;
    static final short GROUP_OBJ = 0x04;
    static final short GROUP = 0x08;
    static final short MASK = 0x10;
    static final short OTHER = 0x20;

    private static final MethodHandle SETXATTR = Linker.nativeLinker()
            .downcallHandle(
                    Linker.nativeLinker().defaultLookup().find("setxattr").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));

    record Entry(short tag, int permissions, int id) {}

    private final List<Entry> entries = new ArrayList<>();

    /** An ACL with the three entries every ACL has: owner, owning group, others (rwx bits, 0..7). */
    static PosixAcl of(int owner, int group, int other) {
        PosixAcl acl = new PosixAcl();
        acl.entries.add(new Entry(USER_OBJ, owner, -1));
        acl.entries.add(new Entry(GROUP_OBJ, group, -1));
        acl.entries.add(new Entry(OTHER, other, -1));
        return acl;
    }

    PosixAcl user(int uid, int permissions) {
        entries.add(new Entry(USER, permissions, uid));
        return this;
    }

    PosixAcl group(int gid, int permissions) {
        entries.add(new Entry(GROUP, permissions, gid));
        return this;
    }

    PosixAcl mask(int permissions) {
        entries.add(new Entry(MASK, permissions, -1));
        return this;
    }

    /** Writes it as {@code file}'s access ACL (the kernel sets the mode's group bits to the mask). */
    void applyTo(Path file) throws Throwable {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparingInt((Entry e) -> e.tag()).thenComparingInt(e -> e.id()));
        ByteBuffer b = ByteBuffer.allocate(4 + 8 * sorted.size()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(2);
        for (Entry e : sorted) {
            b.putShort(e.tag()).putShort((short) e.permissions()).putInt(e.id());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, b.array());
            int r = (int) SETXATTR.invokeExact(
                    arena.allocateFrom(file.toString()),
                    arena.allocateFrom("system.posix_acl_access"),
                    value,
                    value.byteSize(),
                    0);
            if (r != 0) {
                throw new IllegalStateException("setxattr(system.posix_acl_access) of " + file + " failed");
            }
        }
    }
}
