package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class AsyncEventTypeTest {

    @Test
    void aPortEventCarriesItsPortAndTypesMapToTheirCValues() {
        for (AsyncEventType t : AsyncEventType.values()) {
            if (t != AsyncEventType.UNKNOWN) {
                assertSame(t, AsyncEventType.of(t.value()));
            }
        }
        AsyncEvent e = new AsyncEvent(AsyncEventType.PORT_ERR, AsyncEventType.PORT_ERR.value(), "rxe0", 1, -1, null);
        assertEquals("PORT_ERR on rxe0 port 1", e.toString());
        assertNotNull(e.subject());
        assertSame(AsyncEventType.UNKNOWN, AsyncEventType.of(12345));
    }
}
