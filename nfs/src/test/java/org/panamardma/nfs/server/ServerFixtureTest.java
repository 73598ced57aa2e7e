package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.nfs.NfsException;
import org.panamardma.nfs.NfsStat3;

/**
 * The prelude of the tests that run a whole server in process ({@link ServerFixture}): a temporary directory for its
 * export, the fixture a test starts, stopped after each test whatever happened, and the status an NFS call failed
 * with.
 */
abstract class ServerFixtureTest {
    @TempDir
    Path dir;

    ServerFixture fx;

    @AfterEach
    void stopServer() {
        if (fx != null) {
            fx.close();
        }
    }

    /** @return the NFS status of the {@link NfsException} {@code call} must fail with */
    static NfsStat3 status(Executable call) {
        return assertThrows(NfsException.class, call).status();
    }
}
