package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The call's input memory goes back once, after the transport's use and every procedure's retention are over. */
class CallInputTest {
    @Test
    void outsideATransportsLoanThereIsNothingToKeep() {
        assertNull(CallInput.retain());
    }

    @Test
    void theMemoryGoesBackOnceAfterTheTransportAndEveryRetentionAreDone() throws Exception {
        AtomicInteger given = new AtomicInteger();
        CallInput input = CallInput.lentUntil(given::incrementAndGet);
        AutoCloseable[] kept = input.during(() -> new AutoCloseable[] {CallInput.retain(), CallInput.retain()});
        assertNotNull(kept[0]);
        input.close();
        input.close(); // the transport's second close counts nothing
        assertEquals(0, given.get(), "two procedures still read it");
        kept[0].close();
        kept[0].close(); // nor does a retention's
        assertEquals(0, given.get(), "one procedure still reads it");
        kept[1].close();
        assertEquals(1, given.get());
    }

    @Test
    void withoutRetentionItGoesBackWithTheTransportsClose() {
        AtomicInteger given = new AtomicInteger();
        CallInput input = CallInput.lentUntil(given::incrementAndGet);
        input.during(() -> "served");
        assertEquals(0, given.get(), "still the transport's (its reply may point into it)");
        input.close();
        assertEquals(1, given.get());
    }

    @Test
    void aRetentionAfterTheMemoryWentBackIsRefused() {
        AtomicInteger given = new AtomicInteger();
        CallInput input = CallInput.lentUntil(given::incrementAndGet);
        input.close();
        assertThrows(IllegalStateException.class, () -> input.during(CallInput::retain));
        assertEquals(1, given.get());
    }
}
