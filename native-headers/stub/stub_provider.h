/*
 * panama-rdma's stub provider: what its two halves share. stub_provider.c is the "device" (a libibverbs with one
 * device, stub0, that completes every request at once); stub_bench.c is the C application the Java binding is
 * measured against. Nothing here is part of libibverbs' API: STUB_PROVIDER_1 in libibverbs.map.
 */
#ifndef PANAMA_RDMA_STUB_PROVIDER_H
#define PANAMA_RDMA_STUB_PROVIDER_H

#include <stdint.h>
#include <infiniband/verbs.h>

/* The device's name, as ibv_get_device_list reports it. */
#define STUB_DEVICE_NAME "stub0"

/* The live queue pair numbered qp_num, or NULL: how the C loops find the very QP a Java QueuePair wraps. */
struct ibv_qp *stub_qp_by_number(uint32_t qp_num);

/* Whether cq was made by ibv_create_cq_ex (polled with ibv_start_poll) rather than ibv_create_cq. */
int stub_cq_is_extended(struct ibv_cq *cq);

/* The entry points whose calls the stub counts, and the counts so far (in this order) into counts. */
enum stub_call {
	STUB_CALL_POST_SEND = 0,
	STUB_CALL_WR_START = 1,
	STUB_CALL_POLL_CQ = 2,
	STUB_CALL_START_POLL = 3,
	STUB_CALLS = 4,
};
void stub_call_counts(uint64_t counts[STUB_CALLS]);

/*
 * The operations the C loops post; the Java side (BindingCostBenchmark.Op) uses the same numbers.
 * FLUSH and ATOMIC WRITE exist only in the extended API (ibv_wr_flush, ibv_wr_atomic_write).
 */
enum stub_bench_op {
	STUB_OP_SEND = 0,
	STUB_OP_WRITE = 1,
	STUB_OP_READ = 2,
	STUB_OP_FETCH_ADD = 3,
	STUB_OP_FLUSH = 4,
	STUB_OP_ATOMIC_WRITE = 5,
};

/*
 * How the C loops post and poll, as the Java library does on each kind of QP and CQ (StubLoopback.Path):
 * LEGACY a plain QP and CQ (ibv_post_send, ibv_poll_cq); EXTENDED an ibv_qp_ex and ibv_cq_ex, FLUSH and ATOMIC WRITE
 * through ibv_wr_*, every other request through ibv_post_send, polled with ibv_poll_cq; WORK_REQUESTS the same QP and
 * CQ with every request through ibv_wr_* (start, builder, setter, complete) and ibv_start_poll / ibv_next_poll /
 * ibv_end_poll reading every field the Java CompletionQueue reads.
 */
enum stub_bench_path {
	STUB_PATH_LEGACY = 0,
	STUB_PATH_EXTENDED = 1,
	STUB_PATH_WORK_REQUESTS = 2,
};

/*
 * n times: post one signaled request of op on QP qp_num on path, then poll its completion from the QP's send CQ into
 * wc[0..capacity). Returns the sum of the polled wr_ids (1 + 2 + ... + n), or -errno at the first failure (-EINVAL
 * where the QP or CQ is not of the path's kind).
 */
int64_t stub_bench_post_poll(uint32_t qp_num, int path, int op, uint32_t lkey, uint64_t addr, uint32_t length,
			     uint64_t remote_addr, uint32_t rkey, struct ibv_wc *wc, int capacity, int64_t n);

/*
 * The message-rate loop: n times, post batch RDMA WRITEs of 1 byte on path, each its own ibv_post_send (or ibv_wr_*
 * region), only the last of the batch signaled (selective signaling, as message-rate tests do: perftest's cq_mod),
 * then poll that one completion. Returns the sum of the polled wr_ids, or -errno.
 */
int64_t stub_bench_message_rate(uint32_t qp_num, int path, uint32_t lkey, uint64_t addr, uint64_t remote_addr,
				uint32_t rkey, struct ibv_wc *wc, int capacity, int batch, int64_t n);

/* A call that does nothing, of post_send's shape, and n indirect calls of fn from C (returns n): what a call into the
 * provider costs by itself, from C and, through FFM, from Java (BindingCostBenchmark's CALL request). */
int stub_nop(void *a, void *b, void *c);
int64_t stub_bench_calls(int (*fn)(void *, void *, void *), void *a, void *b, void *c, int64_t n);

/* Callgrind's CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT(why); 0 where the stub was built without valgrind's
 * headers (then they do nothing). */
int stub_callgrind_zero(void);
int stub_callgrind_dump(const char *why);

#endif
