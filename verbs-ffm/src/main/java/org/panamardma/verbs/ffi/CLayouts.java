package org.panamardma.verbs.ffi;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * C types of the x86_64 / aarch64 Linux ABI (LP64) and struct/union layouts built by C's rules: each member at the
 * next multiple of its alignment, the whole padded to the largest alignment. Writing the padding by hand is how
 * hand-made bindings go wrong; the ABI test (native-headers) checks the result against the real headers.
 */
public final class CLayouts {
    private CLayouts() {}

    public static final ValueLayout.OfByte C_CHAR = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfByte C_U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort C_U16 = ValueLayout.JAVA_SHORT;
    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfInt C_U32 = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong C_U64 = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong C_SIZE_T = ValueLayout.JAVA_LONG;
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS;

    /** glibc x86_64 / aarch64: {@code pthread_mutex_t} is 40 bytes, {@code pthread_cond_t} 48, both 8-aligned. */
    public static MemoryLayout pthreadMutex(String name) {
        return MemoryLayout.sequenceLayout(5, C_U64).withName(name);
    }

    public static MemoryLayout pthreadCond(String name) {
        return MemoryLayout.sequenceLayout(6, C_U64).withName(name);
    }

    public static SequenceLayout array(long count, MemoryLayout element, String name) {
        return MemoryLayout.sequenceLayout(count, element).withName(name);
    }

    /** A struct laid out by C's rules from named members. */
    public static StructLayout struct(String name, MemoryLayout... members) {
        List<MemoryLayout> laidOut = new ArrayList<>();
        long offset = 0;
        long maxAlign = 1;
        for (MemoryLayout m : members) {
            long align = m.byteAlignment();
            maxAlign = Math.max(maxAlign, align);
            long padding = (align - offset % align) % align;
            if (padding > 0) {
                laidOut.add(MemoryLayout.paddingLayout(padding));
                offset += padding;
            }
            laidOut.add(m);
            offset += m.byteSize();
        }
        long tail = (maxAlign - offset % maxAlign) % maxAlign;
        if (tail > 0) {
            laidOut.add(MemoryLayout.paddingLayout(tail));
        }
        StructLayout s = MemoryLayout.structLayout(laidOut.toArray(MemoryLayout[]::new));
        return name == null ? s : s.withName(name);
    }

    /** A union: size is the largest member rounded up to the largest alignment. */
    public static UnionLayout union(String name, MemoryLayout... members) {
        long maxSize = 0;
        long maxAlign = 1;
        for (MemoryLayout m : members) {
            maxSize = Math.max(maxSize, m.byteSize());
            maxAlign = Math.max(maxAlign, m.byteAlignment());
        }
        List<MemoryLayout> all = new ArrayList<>(List.of(members));
        long rounded = (maxSize + maxAlign - 1) / maxAlign * maxAlign;
        if (rounded > maxSize) {
            // a padding member of the full size keeps the union's size as C has it
            all.add(MemoryLayout.paddingLayout(rounded));
        }
        UnionLayout u = MemoryLayout.unionLayout(all.toArray(MemoryLayout[]::new));
        return name == null ? u : u.withName(name);
    }

    /** Byte offset of a (possibly nested, dot-separated) member. */
    public static long offset(GroupLayout layout, String path) {
        String[] parts = path.split("\\.");
        MemoryLayout.PathElement[] elements = new MemoryLayout.PathElement[parts.length];
        for (int i = 0; i < parts.length; i++) {
            elements[i] = MemoryLayout.PathElement.groupElement(parts[i]);
        }
        return layout.byteOffset(elements);
    }
}
