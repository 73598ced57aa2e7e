package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * One {@code struct linux_dirent64} of a {@code getdents64(2)} buffer ({@link Posix#getdents64}): inode number,
 * offset of the next entry, this entry's length, its {@code d_type} and its name (a byte string, see
 * {@link ExportFs}). The layout is linux/dirent.h's, the same on every architecture.
 *
 * @param ino the inode number
 * @param off the offset to continue reading the directory after this entry
 * @param reclen this entry's length in the buffer
 * @param type the entry's type ({@code DT_*})
 * @param name the entry's name
 */
record Dirent(long ino, long off, int reclen, byte type, String name) {
    static Dirent at(MemorySegment buf, long at) {
        long ino = buf.get(JAVA_LONG, at);
        long off = buf.get(JAVA_LONG, at + 8);
        int reclen = Short.toUnsignedInt(buf.get(JAVA_SHORT, at + 16));
        byte type = buf.get(JAVA_BYTE, at + 18);
        long nameAt = at + 19;
        long end = nameAt;
        long limit = at + reclen;
        while (end < limit && buf.get(JAVA_BYTE, end) != 0) {
            end++;
        }
        byte[] name = buf.asSlice(nameAt, end - nameAt).toArray(JAVA_BYTE);
        return new Dirent(ino, off, reclen, type, new String(name, StandardCharsets.ISO_8859_1));
    }

    boolean isDotOrDotDot() {
        return name.equals(".") || name.equals("..");
    }
}
