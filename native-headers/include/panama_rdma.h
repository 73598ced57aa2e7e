/*
 * panama-rdma entry header: everything the Java bindings (verbs-ffm, package org.panamardma.verbs.ffi) are made
 * from. jextract, where available, regenerates the bindings from this header (see native-headers/README.md); the
 * ABI probe checks the hand-written ones against it.
 */
#ifndef PANAMA_RDMA_H
#define PANAMA_RDMA_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* libc: waiting on completion-channel fds, mapping device-DAX persistent memory */
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>

#endif
