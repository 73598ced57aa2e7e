package org.panamardma.nfs;

import java.lang.foreign.MemorySegment;

/**
 * {@code READ3resok} (RFC 1813 section 3.3.6); the data is in the caller's buffer.
 *
 * @param attributes the file's attributes, or {@code null}
 * @param count the bytes read
 * @param eof whether the read reached the end of the file
 * @param data the bytes read: the first {@code count} bytes of the caller's buffer
 */
public record ReadResult(Fattr3 attributes, int count, boolean eof, MemorySegment data) {}
