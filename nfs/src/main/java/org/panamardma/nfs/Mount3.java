package org.panamardma.nfs;

import java.util.ArrayList;
import java.util.List;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * The MOUNT protocol version 3 (RFC 1813 appendix I), once for both sides: its numbers and limits, its types
 * ({@code mountres3_ok}, {@code exportnode}) and their XDR, read by {@link MountClient} and written by the server's
 * mountd ({@code org.panamardma.nfs.server.MountServer}).
 */
public final class Mount3 {
    /** The MOUNT program number. */
    public static final int PROGRAM = 100005;
    /** MOUNT version 3, the one that goes with NFSv3. */
    public static final int VERSION = 3;
    /** MOUNTPROC3_NULL (RFC 1813 appendix I, section 5.2.0): does nothing. */
    public static final int PROC_NULL = 0;
    /** MOUNTPROC3_MNT (section 5.2.1): an export path to its root file handle and accepted auth flavors. */
    public static final int PROC_MNT = 1;
    /** MOUNTPROC3_DUMP (section 5.2.2): the mounts the server has recorded. */
    public static final int PROC_DUMP = 2;
    /** MOUNTPROC3_UMNT (section 5.2.3): forgets one mount of the caller. */
    public static final int PROC_UMNT = 3;
    /** MOUNTPROC3_UMNTALL (section 5.2.4): forgets every mount of the caller. */
    public static final int PROC_UMNTALL = 4;
    /** MOUNTPROC3_EXPORT (section 5.2.5): the export list, with the groups allowed each. */
    public static final int PROC_EXPORT = 5;
    /** MNTPATHLEN: the longest export path (RFC 1813 appendix I, section 5.1.1). */
    public static final int MNTPATHLEN = 1024;
    /** MNTNAMLEN: the longest host or group name. */
    public static final int MNTNAMLEN = 255;

    private Mount3() {}

    /**
     * {@code mountres3_ok}.
     *
     * @param root the export's root file handle
     * @param authFlavors the RPC authentication flavors the server accepts for this export, most preferred first
     */
    public record MountResult(FileHandle3 root, List<Integer> authFlavors) implements XdrEncodable {
        /** Copies {@code authFlavors}, so that the result is immutable. */
        public MountResult {
            authFlavors = List.copyOf(authFlavors);
        }

        /** {@code mountres3} with MNT3_OK: the status, the handle and the flavors. */
        @Override
        public void encodeTo(org.panamardma.xdr.XdrEncoder out) {
            out.putEnum(MountStat3.MNT3_OK.code());
            root.encodeTo(out);
            out.putArray(authFlavors, Integer.MAX_VALUE, org.panamardma.xdr.XdrEncoder::putInt);
        }
    }

    /**
     * One {@code exportnode}.
     *
     * @param directory the exported path
     * @param groups the hosts or groups allowed to mount it
     */
    public record Export(String directory, List<String> groups) {
        /** Copies {@code groups}, so that the entry is immutable. */
        public Export {
            groups = List.copyOf(groups);
        }
    }

    /**
     * MNT and UMNT arguments: {@code dirpath}, a {@code string<MNTPATHLEN>}.
     *
     * @param path the export's path on the server, at most {@value #MNTPATHLEN} bytes
     * @return the arguments
     * @throws org.panamardma.xdr.XdrException when encoded, if {@code path} is longer than {@value #MNTPATHLEN} bytes
     */
    public static XdrEncodable dirpath(String path) {
        return out -> out.putString(path, MNTPATHLEN);
    }

    /**
     * {@code dirpath} as the bytes it holds; longer than MNTPATHLEN does not decode.
     *
     * @param in positioned at the arguments
     * @return the path's bytes, as received (a Linux path is bytes, not text)
     * @throws org.panamardma.xdr.XdrException if truncated or longer than {@value #MNTPATHLEN} bytes
     */
    public static byte[] decodeDirpath(XdrDecoder in) {
        return in.getOpaqueBytes(MNTPATHLEN);
    }

    /**
     * {@code mountres3} of a failed MNT: the status alone.
     *
     * @param status any status but MNT3_OK
     * @return the results
     */
    public static XdrEncodable mountFailure(MountStat3 status) {
        return out -> out.putEnum(status.code());
    }

    /**
     * {@code mountres3}: the status, and on MNT3_OK the handle and the flavors.
     *
     * @param in positioned after the RPC reply header
     * @return a {@link MountResult}, or the failing {@link MountStat3}
     */
    public static Object decodeMountResult(XdrDecoder in) {
        MountStat3 status = in.getEnum(MountStat3::of, "mountstat3");
        if (status != MountStat3.MNT3_OK) {
            return status;
        }
        FileHandle3 root = FileHandle3.decode(in);
        return new MountResult(root, in.getArray(Integer.MAX_VALUE, XdrDecoder::getInt));
    }

    /**
     * {@code exports}: a linked list of {@code exportnode}, each with a linked list of {@code groupnode}.
     *
     * @param exports the exports and, for each, the hosts or groups allowed
     * @return the results; a path longer than {@value #MNTPATHLEN} or a name longer than {@value #MNTNAMLEN} bytes
     *        fails when encoded
     */
    public static XdrEncodable exports(List<Export> exports) {
        return out -> {
            for (Export e : exports) {
                out.putBoolean(true).putString(e.directory(), MNTPATHLEN);
                for (String group : e.groups()) {
                    out.putBoolean(true).putString(group, MNTNAMLEN);
                }
                out.putBoolean(false);
            }
            out.putBoolean(false);
        };
    }

    /**
     * Reads {@code exports}, as {@link #exports} writes them.
     *
     * @param in positioned after the RPC reply header
     * @return the exports, in the server's order
     * @throws org.panamardma.xdr.XdrException if truncated, or a path or name exceeds its limit
     */
    public static List<Export> decodeExports(XdrDecoder in) {
        List<Export> exports = new ArrayList<>();
        while (in.getBoolean()) {
            String dir = in.getString(MNTPATHLEN);
            List<String> groups = new ArrayList<>();
            while (in.getBoolean()) {
                groups.add(in.getString(MNTNAMLEN));
            }
            exports.add(new Export(dir, groups));
        }
        return exports;
    }
}
