/*
 * The ABI probe's fixed part. A generated probe.c (one macro call per line of the symbols list, see
 * native-headers/README.md) includes this and is built against the installed rdma-core headers:
 *
 *   gcc -std=gnu11 -w -DPROBE_LINKED -I native-headers/include -I native-headers/probe probe.c -o probe -libverbs -lrdmacm
 *
 * (without -DPROBE_LINKED and the libraries, against a header set: -isystem SET/usr/include; see README.md)
 *
 * Running it prints one line per item, key first (the symbols-list line), then its values:
 *
 *   struct ibv_device size=664 align=8
 *   union ibv_gid size=16 align=8
 *   field ibv_send_wr wr.rdma.rkey offset=48 size=4 class=1 array=0
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

/* the libc constants the ffi package binds (libc_h: open/fcntl/poll/mmap for completion channels and device DAX,
 * eventfd for an event loop's wake-up) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "panama_rdma.h"

#define PROBE_STRUCT(kw, T) \
    printf("%s %s size=%zu align=%zu\n", #kw, #T, sizeof(kw T), (size_t) _Alignof(kw T));

/* the member as an rvalue: an array decays to a pointer, everything else keeps its type */
#define PROBE_M(kw, T, M) (((kw T *) 0)->M)
#define PROBE_IS_ARRAY(e) (!__builtin_types_compatible_p(__typeof__(e), __typeof__((0, (e)))))

/* class: GCC's __builtin_classify_type: 1 integer (also char, enum, _Bool), 5 pointer (also a decayed array),
 * 8 floating, 12 struct, 13 union; array=1 when the member is an array */
#define PROBE_FIELD(kw, T, M) \
    printf("field %s %s offset=%zu size=%zu class=%d array=%d\n", #T, #M, offsetof(kw T, M), \
           sizeof(PROBE_M(kw, T, M)), __builtin_classify_type((0, PROBE_M(kw, T, M))), \
           PROBE_IS_ARRAY(PROBE_M(kw, T, M)));
/* for a member the Java side binds as an array: element count, element size and class */
#define PROBE_ELEMS(kw, T, M) \
    printf("field %s %s elements=%zu elem_size=%zu elem_class=%d elem_array=%d\n", #T, #M, \
           sizeof(PROBE_M(kw, T, M)) / sizeof(PROBE_M(kw, T, M)[0]), sizeof(PROBE_M(kw, T, M)[0]), \
           __builtin_classify_type((0, PROBE_M(kw, T, M)[0])), PROBE_IS_ARRAY(PROBE_M(kw, T, M)[0]));
/* at file scope: declares a function of the type a function-pointer member points to, so that gcc -aux-info
 * writes its prototype (return and parameter types) */
#define PROBE_FNPTR(kw, T, M, ID) \
    extern __typeof__(*PROBE_M(kw, T, M)) panama_fnptr_##ID;
#define PROBE_CONST(C) \
    printf("const %s value=%lld\n", #C, (long long) (C));
#ifdef PROBE_LINKED
/* linked against the installed libibverbs / librdmacm: "exported" asks the dynamic linker */
#define PROBE_FUNC(F) \
    probe_func(#F, (void (*)(void)) &F, 0);
#define PROBE_FUNC_MACRO(F) \
    probe_func(#F, (void (*)(void)) &F, 1);
#else
/* not linked (a header set whose libraries are not installed): only "declared"; AbiTest reads the exports from
 * the set's .so files (readelf) */
#define PROBE_FUNC(F) \
    printf("func %s declared macro=no size=%zu\n", #F, sizeof(&F));
#define PROBE_FUNC_MACRO(F) \
    printf("func %s declared macro=yes size=%zu\n", #F, sizeof(&F));
#endif
/* the second probe: the class and size of a type named in a prototype (gcc -aux-info) */
#define PROBE_TYPE(N, T) \
    printf("type %d class=%d size=%zu\n", N, __builtin_classify_type(*(__typeof__(T) *) 0), sizeof(T));

#ifdef PROBE_LINKED
static void probe_func(const char *name, void (*address)(void), int macro) {
    printf("func %s declared exported=%s macro=%s\n", name,
           address != NULL && dlsym(RTLD_DEFAULT, name) != NULL ? "yes" : "no", macro ? "yes" : "no");
}
#endif

static void probe_header(void) {
#ifdef __VERSION__
    printf("# compiler gcc %s\n", __VERSION__);
#endif
    printf("# pointer %zu long %zu\n", sizeof(void *), sizeof(long));
}

#endif
