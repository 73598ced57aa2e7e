package org.panamardma.nfs.server;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;

/**
 * The secret that signs file handles ({@link FileHandles}), kept in the server's state directory so that handles stay
 * valid across restarts, as knfsd's stay valid because they name the inode rather than a session.
 */
final class HandleSecret {
    private HandleSecret() {}

    /**
     * The 32-byte secret of {@code state}/secret, created (mode 0600) on first use. Refuses a state directory inside
     * the export, where clients could read the secret and forge handles.
     */
    static byte[] load(Path state, Path export) throws IOException {
        Path stateReal = state.toAbsolutePath().normalize();
        Path exportReal = export.toRealPath();
        Files.createDirectories(stateReal);
        if (stateReal.toRealPath().startsWith(exportReal)) {
            throw new IOException("the state directory " + state + " is inside the export " + export
                    + ": clients could read the handle secret");
        }
        Path file = stateReal.resolve("secret");
        if (Files.exists(file)) {
            byte[] secret = Files.readAllBytes(file);
            if (secret.length != 32) {
                throw new IOException(file + " holds " + secret.length + " bytes, not a 32-byte secret");
            }
            return secret;
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Path temp = Files.createTempFile(
                stateReal,
                "secret",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(temp, secret);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
            Files.deleteIfExists(temp);
            return load(state, export); // another server made it first
        }
        return secret;
    }

    /** The default state directory: {@code $XDG_STATE_HOME/panama-nfs}, else {@code ~/.local/state/panama-nfs}. */
    static Path defaultState() {
        String xdg = System.getenv("XDG_STATE_HOME");
        Path base = xdg != null && !xdg.isEmpty()
                ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".local", "state");
        return base.resolve("panama-nfs");
    }
}
