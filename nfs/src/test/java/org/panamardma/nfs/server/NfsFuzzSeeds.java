package org.panamardma.nfs.server;

import static org.panamardma.testing.SeedCorpus.write;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.FileType3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Xdr;
import org.panamardma.nfs.NfsTime3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.StableHow;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;

/**
 * Writes the seed corpus of the NFS server's fuzz targets (nfs/FUZZING.md): valid arguments of every procedure, as
 * this project's client encodes them, real-shaped file handles, attributes, MOUNT messages and credentials, into the
 * {@code <Class>Inputs/<method>/} directories Jazzer replays in every {@code ./mvnw verify}. Run by
 * {@code nfs/fuzz.sh seeds} after a format changes.
 */
public final class NfsFuzzSeeds {
    private NfsFuzzSeeds() {}

    public static void main(String[] args) throws IOException {
        Path resources = Path.of(args.length > 0 ? args[0] : "src/test/resources");
        write(resources, "org.panamardma.nfs.server.Nfs3ArgumentsFuzzTest", "decode", argumentSeeds());
        write(resources, "org.panamardma.nfs.server.FileHandlesFuzzTest", "decode", handleSeeds());
        write(resources, "org.panamardma.nfs.server.Sattr3FuzzTest", "decode", sattrSeeds());
        write(resources, "org.panamardma.nfs.server.MountFuzzTest", "decode", mountSeeds());
    }

    private static byte[] encode(int prefix, XdrEncodable item) {
        byte[] buf = new byte[8192];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(buf));
        out.put(item);
        byte[] body = Arrays.copyOf(buf, (int) out.position());
        if (prefix < 0) {
            return body;
        }
        byte[] all = new byte[body.length + 1];
        all[0] = (byte) prefix;
        System.arraycopy(body, 0, all, 1, body.length);
        return all;
    }

    /** A handle as the server makes them: depth 3, two hints. */
    static FileHandle3 handle() {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) 7);
        return new FileHandles(secret, "/srv/export").encode(3, 123456, 0x1234abcd, new byte[] {5, 6});
    }

    private static int index(int procedure) {
        int i = Nfs3ArgumentsFuzzTest.PROCEDURES.indexOf(procedure);
        if (i >= 0) {
            return i;
        }
        throw new IllegalArgumentException("procedure " + procedure);
    }

    static Map<String, byte[]> argumentSeeds() {
        FileHandle3 h = handle();
        Sattr3 all = new Sattr3(
                0644, 1000, 1000, 4096L, Sattr3.SetTime.SERVER, Sattr3.SetTime.client(new NfsTime3(1_700_000_000L, 5)));
        Map<String, byte[]> s = new LinkedHashMap<>();
        s.put("getattr", encode(index(Nfs3.PROC_GETATTR), Nfs3Xdr.getattr(h)));
        s.put("setattr", encode(index(Nfs3.PROC_SETATTR), Nfs3Xdr.setattr(h, all, new NfsTime3(1, 2))));
        s.put("lookup", encode(index(Nfs3.PROC_LOOKUP), Nfs3Xdr.lookup(h, "name")));
        s.put("access", encode(index(Nfs3.PROC_ACCESS), Nfs3Xdr.access(h, 0x3f)));
        s.put("readlink", encode(index(Nfs3.PROC_READLINK), Nfs3Xdr.getattr(h)));
        s.put("read", encode(index(Nfs3.PROC_READ), Nfs3Xdr.read(h, 4096, 1 << 20)));
        s.put(
                "write",
                encode(
                        index(Nfs3.PROC_WRITE),
                        Nfs3Xdr.write(h, 0, StableHow.UNSTABLE, MemorySegment.ofArray("data".getBytes()))));
        s.put(
                "create-unchecked",
                encode(index(Nfs3.PROC_CREATE), Nfs3Xdr.create(h, "f", Nfs3.CREATE_UNCHECKED, Sattr3.mode(06777), 0)));
        s.put(
                "create-exclusive",
                encode(
                        index(Nfs3.PROC_CREATE),
                        Nfs3Xdr.create(h, "f", Nfs3.CREATE_EXCLUSIVE, Sattr3.NONE, 0x0102030405060708L)));
        s.put("mkdir", encode(index(Nfs3.PROC_MKDIR), Nfs3Xdr.mkdir(h, "d", all)));
        s.put("symlink", encode(index(Nfs3.PROC_SYMLINK), Nfs3Xdr.symlink(h, "l", Sattr3.NONE, "../target")));
        s.put(
                "mknod-chr",
                encode(index(Nfs3.PROC_MKNOD), Nfs3Xdr.mknod(h, "c", FileType3.NF3CHR, Sattr3.mode(0600), 1, 7)));
        s.put(
                "mknod-fifo",
                encode(index(Nfs3.PROC_MKNOD), Nfs3Xdr.mknod(h, "p", FileType3.NF3FIFO, Sattr3.mode(0600), 0, 0)));
        s.put("remove", encode(index(Nfs3.PROC_REMOVE), Nfs3Xdr.lookup(h, "f")));
        s.put("rmdir", encode(index(Nfs3.PROC_RMDIR), Nfs3Xdr.lookup(h, "d")));
        s.put("rename", encode(index(Nfs3.PROC_RENAME), Nfs3Xdr.rename(h, "a", h, "b")));
        s.put("link", encode(index(Nfs3.PROC_LINK), Nfs3Xdr.link(h, h, "hard")));
        s.put("readdir", encode(index(Nfs3.PROC_READDIR), Nfs3Xdr.readdir(h, 0, 0, 4096)));
        s.put("readdirplus", encode(index(Nfs3.PROC_READDIRPLUS), Nfs3Xdr.readdirplus(h, 12, 34, 4096, 65536)));
        s.put("fsstat", encode(index(Nfs3.PROC_FSSTAT), Nfs3Xdr.getattr(h)));
        s.put("fsinfo", encode(index(Nfs3.PROC_FSINFO), Nfs3Xdr.fsinfo(h)));
        s.put("pathconf", encode(index(Nfs3.PROC_PATHCONF), Nfs3Xdr.getattr(h)));
        s.put("commit", encode(index(Nfs3.PROC_COMMIT), Nfs3Xdr.commit(h, 0, 0)));
        return s;
    }

    static Map<String, byte[]> handleSeeds() {
        FileHandle3 h = handle();
        Map<String, byte[]> s = new LinkedHashMap<>();
        s.put("xdr", encode(0, h::encodeTo));
        byte[] body = Arrays.copyOf(h.bytes(), h.bytes().length - FileHandles.MAC_SIZE);
        byte[] signed = new byte[body.length + 1];
        signed[0] = 1;
        System.arraycopy(body, 0, signed, 1, body.length);
        s.put("signed", signed);
        for (int pick = 0; pick < 4; pick++) {
            byte[] aimed = new byte[body.length + 2];
            aimed[0] = 3;
            aimed[1] = (byte) (pick * 3);
            System.arraycopy(body, 0, aimed, 2, body.length);
            aimed[2 + 1] = (byte) pick; // depth
            s.put("aimed-" + pick, aimed);
        }
        return s;
    }

    static Map<String, byte[]> sattrSeeds() {
        Map<String, byte[]> s = new LinkedHashMap<>();
        s.put("none", encode(-1, Sattr3.NONE::encodeTo));
        s.put("mode", encode(-1, Sattr3.mode(06777)::encodeTo));
        s.put(
                "all",
                encode(
                        -1,
                        new Sattr3(
                                0755,
                                0,
                                0,
                                0L,
                                Sattr3.SetTime.client(new NfsTime3(0xffffffffL, 999_999_999)),
                                Sattr3.SetTime.SERVER)::encodeTo));
        return s;
    }

    static Map<String, byte[]> mountSeeds() {
        Map<String, byte[]> s = new LinkedHashMap<>();
        s.put("dirpath", encode(0, out -> out.putString("/srv/export", 1024)));
        s.put("mnt-ok", encode(1, out -> {
            out.putEnum(0);
            handle().encodeTo(out);
            out.putInt(1).putInt(1);
        }));
        s.put("mnt-acces", encode(1, out -> out.putEnum(13)));
        s.put("exports", encode(2, out -> {
            out.putBoolean(true).putString("/srv/export", 1024);
            out.putBoolean(true)
                    .putString("10.77.0.0/16", 255)
                    .putBoolean(true)
                    .putString("*", 255)
                    .putBoolean(false);
            out.putBoolean(false);
        }));
        s.put(
                "cred-root",
                withPrefix(
                        3,
                        new AuthSysParms(1, "host", 0, 0, List.of(0, 5))
                                .toOpaqueAuth()
                                .body()));
        s.put(
                "cred-minus-one",
                withPrefix(
                        3,
                        new AuthSysParms(1, "host", -1, -1, List.of(-1))
                                .toOpaqueAuth()
                                .body()));
        s.put(
                "cred-user",
                withPrefix(
                        3,
                        new AuthSysParms(
                                        1,
                                        "h",
                                        1000,
                                        1000,
                                        List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
                                .toOpaqueAuth()
                                .body()));
        return s;
    }

    private static byte[] withPrefix(int prefix, byte[] body) {
        byte[] all = new byte[body.length + 1];
        all[0] = (byte) prefix;
        System.arraycopy(body, 0, all, 1, body.length);
        return all;
    }
}
