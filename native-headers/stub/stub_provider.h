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
 * n times: post one signaled request of op on QP qp_num through the verbs.h inline verbs (extended: ibv_wr_start,
 * the builder, ibv_wr_set_sge, ibv_wr_complete; legacy: ibv_post_send), then poll its completion from the QP's send
 * CQ into wc[0..capacity) (ibv_poll_cq, or ibv_start_poll / ibv_next_poll / ibv_end_poll reading every field the
 * Java CompletionQueue reads). Returns the sum of the polled wr_ids (1 + 2 + ... + n), or -errno at the first failure.
 */
int64_t stub_bench_post_poll(uint32_t qp_num, int extended, int op, uint32_t lkey, uint64_t addr, uint32_t length,
			     uint64_t remote_addr, uint32_t rkey, struct ibv_wc *wc, int capacity, int64_t n);

#endif
