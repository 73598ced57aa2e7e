package org.panamardma.nfs;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.panamardma.xdr.XdrEncodable;

/**
 * The arguments of the NFSv3 procedures this client calls, as XDR (RFC 1813 section 3): encoders of each
 * {@code *3args}, the records of {@link Nfs3Args}, which the server decodes (one definition for both sides). Their
 * results are read by {@link Nfs3ResultsXdr}.
 *
 * <p>Direct data placement (RFC 8267 section 4.1: in NFSv3 only the opaque data of READ results and WRITE
 * arguments are DDP-eligible): {@link #write} writes its data with {@code putEligibleOpaque}, so an RDMA transport
 * may move it in a Read chunk.
 */
public final class Nfs3Xdr {
    /**
     * {@code filename3} is {@code string<>}; Linux and most servers cap names at 255 bytes (NAME_MAX), and answer a
     * longer one NFS3ERR_NAMETOOLONG.
     */
    public static final int MAX_NAME = 255;

    private Nfs3Xdr() {}

    /**
     * {@code GETATTR3args}: the object's handle (RFC 1813 section 3.3.1).
     *
     * @param object the object's file handle
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable getattr(FileHandle3 object) {
        return object::encodeTo;
    }

    /**
     * {@code LOOKUP3args}: {@code diropargs3}, the directory's handle and a name (RFC 1813 section 3.3.3).
     *
     * @param directory the directory's file handle
     * @param name one path component, sent as its UTF-8 bytes
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable lookup(FileHandle3 directory, String name) {
        return Nfs3Args.DirOp.utf8(directory, name);
    }

    /**
     * {@code READ3args} (RFC 1813 section 3.3.6).
     *
     * @param file the file's handle
     * @param offset the byte offset in the file
     * @param count the byte count, not negative
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable read(FileHandle3 file, long offset, int count) {
        requireCount(count);
        return new Nfs3Args.ReadArgs(file, offset, count);
    }

    /**
     * {@code WRITE3args} (RFC 1813 section 3.3.7); {@code count} is the data's length and the data is DDP-eligible.
     *
     * @param file the file's handle
     * @param offset the byte offset in the file
     * @param stable how durable the server must make the data before answering
     * @param data the data, at most 2<sup>31</sup>-1 bytes; its memory is read when the call is sent (over RDMA, by the
     *        server through a Read chunk)
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable write(FileHandle3 file, long offset, StableHow stable, MemorySegment data) {
        if (data.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("WRITE of " + data.byteSize() + " bytes: at most 2^31-1 per call");
        }
        return new Nfs3Args.WriteArgs(file, offset, data.byteSize(), stable, data);
    }

    /**
     * {@code FSINFO3args}: a handle in the file system, normally its root (RFC 1813 section 3.3.19).
     *
     * @param fsroot a handle in the file system, normally its root
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable fsinfo(FileHandle3 fsroot) {
        return fsroot::encodeTo;
    }

    /**
     * {@code COMMIT3args} (RFC 1813 section 3.3.21); count 0 commits from offset to the end of the file.
     *
     * @param file the file's handle
     * @param offset the byte offset in the file
     * @param count the byte count, not negative
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable commit(FileHandle3 file, long offset, int count) {
        requireCount(count);
        return new Nfs3Args.CommitArgs(file, offset, count);
    }

    /**
     * {@code READDIR3args} (RFC 1813 section 3.3.16).
     *
     * @param directory the directory's file handle
     * @param cookie 0 to start, else the cookie of the last entry of the previous batch
     * @param cookieVerifier 0 to start, else the verifier of the previous batch
     * @param count the largest {@code READDIR3resok} the server may return, XDR overhead included
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable readdir(FileHandle3 directory, long cookie, long cookieVerifier, int count) {
        requireCount(count);
        return new Nfs3Args.ReaddirArgs(directory, cookie, cookieVerifier, count, count, false);
    }

    /**
     * {@code READDIRPLUS3args} (RFC 1813 section 3.3.17).
     *
     * @param directory the directory's file handle
     * @param cookie 0 to start, else the cookie of the last entry of the previous batch
     * @param cookieVerifier 0 to start, else the verifier of the previous batch
     * @param dirCount the most bytes of directory information (file ids, names and cookies) to return
     * @param maxCount the largest {@code READDIRPLUS3resok}, XDR overhead included
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable readdirplus(
            FileHandle3 directory, long cookie, long cookieVerifier, int dirCount, int maxCount) {
        requireCount(dirCount);
        requireCount(maxCount);
        return new Nfs3Args.ReaddirArgs(directory, cookie, cookieVerifier, dirCount, maxCount, true);
    }

    /**
     * {@code SETATTR3args} (RFC 1813 section 3.3.2); {@code guard} is the ctime to check, or null for none.
     *
     * @param object the object's file handle
     * @param attributes the attributes to set; unset fields are left as they are
     * @param guard the ctime the object must still have, or null for no check
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable setattr(FileHandle3 object, Sattr3 attributes, NfsTime3 guard) {
        return new Nfs3Args.SetattrArgs(object, attributes, guard);
    }

    /**
     * {@code ACCESS3args} (RFC 1813 section 3.3.4): the handle and the {@code ACCESS3_*} bits asked about.
     *
     * @param object the object's file handle
     * @param access the {@code Nfs3.ACCESS_*} bits asked about, OR'ed together
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable access(FileHandle3 object, int access) {
        return new Nfs3Args.AccessArgs(object, access);
    }

    /**
     * {@code diropargs3}: a directory and a name, as bytes (REMOVE, RMDIR, and the start of others).
     *
     * @param directory the directory's file handle
     * @param name one path component as the bytes the wire carries (a Linux name is bytes, not text)
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable dirop(FileHandle3 directory, byte[] name) {
        return new Nfs3Args.DirOp(directory, new String(name, StandardCharsets.ISO_8859_1));
    }

    /**
     * {@code CREATE3args} (RFC 1813 section 3.3.8).
     *
     * @param directory the directory's file handle
     * @param name one path component, sent as its UTF-8 bytes
     * @param mode {@link Nfs3#CREATE_UNCHECKED}, {@link Nfs3#CREATE_GUARDED} (with {@code attributes}) or
     *             {@link Nfs3#CREATE_EXCLUSIVE} (with {@code verifier})
     * @param attributes the attributes to set; unset fields are left as they are
     * @param verifier the {@code createverf3} of an EXCLUSIVE create, as a big-endian number; ignored otherwise
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable create(FileHandle3 directory, String name, int mode, Sattr3 attributes, long verifier) {
        return Nfs3Args.CreateArgs.of(Nfs3Args.DirOp.utf8(directory, name), mode, attributes, verifier);
    }

    /**
     * {@code MKDIR3args} (RFC 1813 section 3.3.9).
     *
     * @param directory the directory's file handle
     * @param name one path component, sent as its UTF-8 bytes
     * @param attributes the attributes to set; unset fields are left as they are
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable mkdir(FileHandle3 directory, String name, Sattr3 attributes) {
        return new Nfs3Args.MkdirArgs(Nfs3Args.DirOp.utf8(directory, name), attributes);
    }

    /**
     * {@code SYMLINK3args} (RFC 1813 section 3.3.10).
     *
     * @param directory the directory's file handle
     * @param name one path component, sent as its UTF-8 bytes
     * @param attributes the attributes to set; unset fields are left as they are
     * @param target what the link points to, sent as its UTF-8 bytes
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable symlink(FileHandle3 directory, String name, Sattr3 attributes, String target) {
        return new Nfs3Args.SymlinkArgs(Nfs3Args.DirOp.utf8(directory, name), attributes, Nfs3Args.utf8Bytes(target));
    }

    /**
     * {@code MKNOD3args} (RFC 1813 section 3.3.11); {@code major}/{@code minor} only for devices.
     *
     * @param directory the directory's file handle
     * @param name one path component, sent as its UTF-8 bytes
     * @param type NF3CHR, NF3BLK, NF3SOCK or NF3FIFO
     * @param attributes the attributes to set; unset fields are left as they are
     * @param major the device's major number (NF3CHR, NF3BLK)
     * @param minor the device's minor number (NF3CHR, NF3BLK)
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable mknod(
            FileHandle3 directory, String name, FileType3 type, Sattr3 attributes, int major, int minor) {
        return new Nfs3Args.MknodArgs(Nfs3Args.DirOp.utf8(directory, name), type, attributes, major, minor);
    }

    /**
     * {@code RENAME3args} (RFC 1813 section 3.3.14).
     *
     * @param fromDirectory the directory holding the name now
     * @param fromName the name now, sent as its UTF-8 bytes
     * @param toDirectory the directory to move it to
     * @param toName the new name, sent as its UTF-8 bytes
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable rename(
            FileHandle3 fromDirectory, String fromName, FileHandle3 toDirectory, String toName) {
        return new Nfs3Args.RenameArgs(
                Nfs3Args.DirOp.utf8(fromDirectory, fromName), Nfs3Args.DirOp.utf8(toDirectory, toName));
    }

    /**
     * {@code LINK3args} (RFC 1813 section 3.3.15).
     *
     * @param file the file's handle
     * @param directory the directory's file handle
     * @param name one path component, sent as its UTF-8 bytes
     * @return the arguments, encoding themselves when the call is sent
     */
    public static XdrEncodable link(FileHandle3 file, FileHandle3 directory, String name) {
        return new Nfs3Args.LinkArgs(file, Nfs3Args.DirOp.utf8(directory, name));
    }

    private static void requireCount(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
    }
}
