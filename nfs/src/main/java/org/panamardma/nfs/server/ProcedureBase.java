package org.panamardma.nfs.server;

import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.WccData;
import org.panamardma.xdr.XdrEncoder;

/**
 * What the NFSv3 procedure families ({@link AttributeProcedures}, {@link FileDataProcedures},
 * {@link NamespaceProcedures}, {@link DirectoryListing}) share: the export, the success status, attributes and
 * {@code wcc_data} as RFC 1813 section 2.6 makes them, the file-type checks, and the metadata commit of a
 * {@code sync} export.
 */
abstract class ProcedureBase {
    final ExportFs fs;

    ProcedureBase(ExportFs fs) {
        this.fs = fs;
    }

    static void ok(XdrEncoder out) {
        out.putInt(NfsStat3.NFS3_OK.code());
    }

    Fattr3 attributes(Stat s) {
        return s == null ? null : s.toFattr3(fs.fsid());
    }

    /** Fresh attributes of {@code n}, or null if they cannot be had (post_op_attr is optional). */
    Fattr3 attributes(ExportFs.Node n) {
        try {
            return attributes(fs.stat(n));
        } catch (PosixException e) {
            return null;
        }
    }

    static WccData wcc(Stat before, Fattr3 after) {
        return new WccData(before == null ? null : before.toWccAttr(), after);
    }

    static void requireDirectory(ExportFs.Node n) throws NfsError {
        if (!n.stat().isDirectory()) {
            throw new NfsError(NfsStat3.NFS3ERR_NOTDIR, "not a directory");
        }
    }

    static void requireRegular(Stat s) throws NfsError {
        if (s.isDirectory()) {
            throw new NfsError(NfsStat3.NFS3ERR_ISDIR, "a directory");
        }
        if (!s.isRegular()) {
            throw new NfsError(NfsStat3.NFS3ERR_INVAL, "not a regular file");
        }
    }

    /**
     * For a {@code sync} export (the default), commits the metadata the procedure changed before it replies, as
     * knfsd's {@code commit_metadata} after a create, remove, rename, link or setattr: a reply tells the client the
     * change is durable (a server crash after it must not lose a file the client was told exists).
     */
    void commitMetadata(Caller c, ExportFs.Node... changed) throws PosixException {
        if (!c.options().sync()) {
            return;
        }
        for (int i = 0; i < changed.length; i++) {
            boolean again = false;
            for (int j = 0; j < i; j++) {
                again |= changed[j].stat().ino() == changed[i].stat().ino();
            }
            if (!again) {
                fs.commit(changed[i]);
            }
        }
    }
}
