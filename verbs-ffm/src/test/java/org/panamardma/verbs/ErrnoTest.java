package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ErrnoTest {
    @Test
    void namesMatchLinuxValues() {
        assertEquals("EINVAL", Errno.name(22));
        assertEquals("EOPNOTSUPP", Errno.name(Errno.EOPNOTSUPP));
        assertEquals("ETIMEDOUT", Errno.name(-110), "negative returns of verbs name the same errno");
        assertEquals("EHWPOISON", Errno.name(133));
        assertEquals("errno 4000", Errno.name(4000));
    }

    @Test
    void rdmaExceptionCarriesErrnoAndName() {
        RdmaException e = new RdmaException("ibv_reg_mr", -Errno.EACCES);
        assertEquals(13, e.errno());
        assertEquals("EACCES", e.errnoName());
        assertEquals("ibv_reg_mr failed: EACCES (13)", e.getMessage());
    }
}
