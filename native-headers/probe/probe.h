/*
 * The ABI probe's fixed part. A generated probe.c (one macro call per line of the symbols list, see
 * native-headers/README.md) includes this and is built against the installed rdma-core headers:
 *
 *   gcc -std=gnu11 -w -I native-headers/include -I native-headers/probe probe.c -o probe -libverbs -lrdmacm
 *
 * Running it prints one line per item, key first (the symbols-list line), then its values:
 *
 *   struct ibv_device size=664 align=8
 *   union ibv_gid size=16 align=8
 *   field ibv_send_wr wr.rdma.rkey offset=48 size=4
 *   const IBV_ACCESS_FLUSH_GLOBAL value=65536
 *   func ibv_get_device_list declared exported=yes macro=no
 *
 * Sizes and offsets in bytes. Constants as signed 64-bit. "declared": the function's address was taken, so the
 * headers declare it; "exported": the dynamic linker finds the name in libibverbs / librdmacm (a static inline
 * function is declared but not exported); "macro": the name is also a macro, so C callers get what the macro
 * expands to, not necessarily the exported symbol.
 *
 * A bit-field member cannot be probed: C forbids offsetof and sizeof on it; the compiler rejects that line
 * ("attempt to take address of bit-field" / "'sizeof' applied to a bit-field") and the ABI test reports the
 * item as a bit-field.
 */
#ifndef PANAMA_RDMA_PROBE_H
#define PANAMA_RDMA_PROBE_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* the libc constants the ffi package binds (libc_h: open/fcntl/poll/mmap for completion channels and device DAX) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "panama_rdma.h"

#define PROBE_STRUCT(kw, T) \
    printf("%s %s size=%zu align=%zu\n", #kw, #T, sizeof(kw T), (size_t) _Alignof(kw T));
#define PROBE_FIELD(kw, T, M) \
    printf("field %s %s offset=%zu size=%zu\n", #T, #M, offsetof(kw T, M), sizeof(((kw T *) 0)->M));
#define PROBE_CONST(C) \
    printf("const %s value=%lld\n", #C, (long long) (C));
#define PROBE_FUNC(F) \
    probe_func(#F, (void (*)(void)) &F, 0);
#define PROBE_FUNC_MACRO(F) \
    probe_func(#F, (void (*)(void)) &F, 1);

static void probe_func(const char *name, void (*address)(void), int macro) {
    printf("func %s declared exported=%s macro=%s\n", name,
           address != NULL && dlsym(RTLD_DEFAULT, name) != NULL ? "yes" : "no", macro ? "yes" : "no");
}

static void probe_header(void) {
#ifdef __VERSION__
    printf("# compiler gcc %s\n", __VERSION__);
#endif
    printf("# pointer %zu long %zu\n", sizeof(void *), sizeof(long));
}

#endif
