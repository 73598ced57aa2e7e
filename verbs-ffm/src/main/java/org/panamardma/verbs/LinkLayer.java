package org.panamardma.verbs;

/** The link layer of a port: RoCE and iWARP devices report {@link #ETHERNET}. */
public enum LinkLayer {
    UNSPECIFIED, INFINIBAND, ETHERNET;

    static LinkLayer of(int value) {
        return value == 1 ? INFINIBAND : value == 2 ? ETHERNET : UNSPECIFIED;
    }
}
