package org.panamardma.verbs;

/** The link layer of a port: RoCE and iWARP devices report {@link #ETHERNET}. */
public enum LinkLayer {
    /** {@code IBV_LINK_LAYER_UNSPECIFIED}. */
    UNSPECIFIED,
    /** {@code IBV_LINK_LAYER_INFINIBAND}. */
    INFINIBAND,
    /** {@code IBV_LINK_LAYER_ETHERNET}: RoCE and iWARP. */
    ETHERNET;

    static LinkLayer of(int value) {
        return value == 1 ? INFINIBAND : value == 2 ? ETHERNET : UNSPECIFIED;
    }
}
