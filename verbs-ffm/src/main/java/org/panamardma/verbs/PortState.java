package org.panamardma.verbs;

/** {@code enum ibv_port_state}. */
public enum PortState {
    /** {@code IBV_PORT_NOP}: reserved. */
    NOP,
    /** {@code IBV_PORT_DOWN}: the link is down. */
    DOWN,
    /** {@code IBV_PORT_INIT}: the link is up, the port not yet configured by the subnet manager. */
    INIT,
    /** {@code IBV_PORT_ARMED}: configured, waiting to become active. */
    ARMED,
    /** {@code IBV_PORT_ACTIVE}: the port passes traffic. */
    ACTIVE,
    /** {@code IBV_PORT_ACTIVE_DEFER}: active, with errors deferred. */
    ACTIVE_DEFER,
    /** A value this library does not know. */
    UNKNOWN;

    static PortState of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? values()[value] : UNKNOWN;
    }
}
