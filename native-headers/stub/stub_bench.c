/*
 * The C side of the binding-cost benchmark (benchmarks' BindingCostBenchmark): a C application posting and polling
 * on the very QP and CQ a Java QueuePair wraps, through verbs.h's static inline verbs -- the same function pointers
 * the Java binding calls. A separate translation unit from the provider (stub_provider.c), so that the compiler
 * cannot see through the function pointers: every call is an indirect call, as in a program linked against
 * libibverbs. Each post builds the request as QueuePair does (all of its fields, every time) and each poll reads what
 * CompletionQueue reads, so the difference between the two is what the Java binding adds. On each path (enum
 * stub_bench_path) C makes the calls the library makes: on an extended QP, ibv_post_send for every request but FLUSH
 * and ATOMIC WRITE, and ibv_poll_cq on the extended CQ (the stub serves it, as rxe and mlx5 do); every request
 * through ibv_wr_* and ibv_start_poll on the work-request path.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "stub_provider.h"

/* Callgrind's client requests where valgrind's headers are installed (no-ops when not run under callgrind), for
 * benchmarks/binding-instructions.sh: the instructions of a span of rounds, counted exactly. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif

int stub_callgrind_zero(void)
{
#ifdef CALLGRIND_ZERO_STATS
	CALLGRIND_ZERO_STATS;
	return 1;
#else
	return 0;
#endif
}

int stub_callgrind_dump(const char *why)
{
#ifdef CALLGRIND_DUMP_STATS_AT
	CALLGRIND_DUMP_STATS_AT(why);
	return 1;
#else
	(void)why;
	return 0;
#endif
}

static int post_legacy(struct ibv_qp *qp, int op, uint64_t wr_id, uint32_t lkey, uint64_t addr, uint32_t length,
		       uint64_t remote_addr, uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	struct ibv_send_wr wr, *bad;
	wr.wr_id = wr_id;
	wr.next = NULL;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = flags;
	wr.imm_data = 0;
	switch (op) {
	case STUB_OP_SEND:
		wr.opcode = IBV_WR_SEND;
		wr.wr.rdma.remote_addr = 0;
		wr.wr.rdma.rkey = 0;
		break;
	case STUB_OP_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = remote_addr;
		wr.wr.rdma.rkey = rkey;
		break;
	case STUB_OP_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = remote_addr;
		wr.wr.rdma.rkey = rkey;
		break;
	case STUB_OP_FETCH_ADD:
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = remote_addr;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 0;
		wr.wr.atomic.rkey = rkey;
		break;
	default:
		return EINVAL; /* FLUSH and ATOMIC WRITE: extended API only */
	}
	return ibv_post_send(qp, &wr, &bad);
}

static int post_extended(struct ibv_qp_ex *qpx, int op, uint64_t wr_id, uint32_t lkey, uint64_t addr,
			 uint32_t length, uint64_t remote_addr, uint32_t rkey, unsigned int flags,
			 const uint64_t *atomic_value)
{
	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = flags;
	switch (op) {
	case STUB_OP_SEND:
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, lkey, addr, length);
		break;
	case STUB_OP_WRITE:
		ibv_wr_rdma_write(qpx, rkey, remote_addr);
		ibv_wr_set_sge(qpx, lkey, addr, length);
		break;
	case STUB_OP_READ:
		ibv_wr_rdma_read(qpx, rkey, remote_addr);
		ibv_wr_set_sge(qpx, lkey, addr, length);
		break;
	case STUB_OP_FETCH_ADD:
		ibv_wr_atomic_fetch_add(qpx, rkey, remote_addr, 1);
		ibv_wr_set_sge(qpx, lkey, addr, 8);
		break;
	case STUB_OP_FLUSH:
		ibv_wr_flush(qpx, rkey, remote_addr, length, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
		break;
	case STUB_OP_ATOMIC_WRITE:
		ibv_wr_atomic_write(qpx, rkey, remote_addr, atomic_value);
		break;
	default:
		ibv_wr_abort(qpx);
		return EINVAL;
	}
	return ibv_wr_complete(qpx);
}

/* CompletionQueue.pollExtended: each completion read field by field into an ibv_wc. Returns the count or -errno. */
static int poll_extended(struct ibv_cq_ex *cq, struct ibv_wc *wc, int capacity)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	int rc = ibv_start_poll(cq, &attr);
	if (rc == ENOENT)
		return 0;
	if (rc != 0)
		return -rc;
	int n = 0;
	for (;;) {
		struct ibv_wc *w = &wc[n];
		w->wr_id = cq->wr_id;
		w->status = cq->status;
		w->vendor_err = ibv_wc_read_vendor_err(cq);
		w->qp_num = ibv_wc_read_qp_num(cq);
		if (w->status == IBV_WC_SUCCESS) {
			unsigned int flags = ibv_wc_read_wc_flags(cq);
			w->opcode = ibv_wc_read_opcode(cq);
			w->byte_len = ibv_wc_read_byte_len(cq);
			w->wc_flags = flags;
			w->imm_data = (flags & IBV_WC_WITH_IMM) ? ibv_wc_read_imm_data(cq) : 0;
		} else {
			w->wc_flags = 0;
		}
		n++;
		if (n == capacity)
			break;
		rc = ibv_next_poll(cq);
		if (rc != 0)
			break;
	}
	ibv_end_poll(cq);
	return rc != 0 && rc != ENOENT ? -rc : n;
}

/* The QP numbered qp_num if its QP and CQ are of the kind path needs, else NULL. */
static struct ibv_qp *qp_for_path(uint32_t qp_num, int path)
{
	struct ibv_qp *qp = stub_qp_by_number(qp_num);
	if (qp == NULL || path < STUB_PATH_LEGACY || path > STUB_PATH_WORK_REQUESTS)
		return NULL;
	int extended = path != STUB_PATH_LEGACY;
	if (extended != (ibv_qp_to_qp_ex(qp) != NULL) || extended != stub_cq_is_extended(qp->send_cq))
		return NULL; /* the paths must be the ones the Java side measures */
	return qp;
}

/* One request of op as the library posts it on path: ibv_wr_* where it must (FLUSH, ATOMIC WRITE) or was asked to. */
static int post_one(struct ibv_qp *qp, int path, int op, uint64_t wr_id, uint32_t lkey, uint64_t addr, uint32_t length,
		    uint64_t remote_addr, uint32_t rkey, unsigned int flags, const uint64_t *atomic_value)
{
	if (path == STUB_PATH_WORK_REQUESTS || op == STUB_OP_FLUSH || op == STUB_OP_ATOMIC_WRITE) {
		struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
		if (qpx == NULL)
			return EINVAL;
		return post_extended(qpx, op, wr_id, lkey, addr, length, remote_addr, rkey, flags, atomic_value);
	}
	return post_legacy(qp, op, wr_id, lkey, addr, length, remote_addr, rkey, flags);
}

/* A poll as the library polls on path: ibv_start_poll on the work-request path, else ibv_poll_cq. */
static int poll_one(struct ibv_cq *cq, int path, struct ibv_wc *wc, int capacity)
{
	if (path == STUB_PATH_WORK_REQUESTS)
		return poll_extended((struct ibv_cq_ex *)cq, wc, capacity); /* the provider made it an ibv_cq_ex */
	return ibv_poll_cq(cq, capacity, wc);
}

int64_t stub_bench_post_poll(uint32_t qp_num, int path, int op, uint32_t lkey, uint64_t addr, uint32_t length,
			     uint64_t remote_addr, uint32_t rkey, struct ibv_wc *wc, int capacity, int64_t n)
{
	struct ibv_qp *qp = qp_for_path(qp_num, path);
	if (qp == NULL || capacity < 1)
		return -EINVAL;
	uint64_t atomic_value = 42;
	int64_t sum = 0;
	for (int64_t i = 1; i <= n; i++) {
		int rc = post_one(qp, path, op, (uint64_t)i, lkey, addr, length, remote_addr, rkey, IBV_SEND_SIGNALED,
				  &atomic_value);
		if (rc != 0)
			return -rc;
		int got = poll_one(qp->send_cq, path, wc, capacity);
		if (got != 1 || wc[0].status != IBV_WC_SUCCESS)
			return got < 0 ? got : -EIO;
		sum += (int64_t)wc[0].wr_id;
	}
	return sum;
}

int64_t stub_bench_message_rate(uint32_t qp_num, int path, uint32_t lkey, uint64_t addr, uint64_t remote_addr,
				uint32_t rkey, struct ibv_wc *wc, int capacity, int batch, int64_t n)
{
	struct ibv_qp *qp = qp_for_path(qp_num, path);
	if (qp == NULL || capacity < 1 || batch < 1)
		return -EINVAL;
	int64_t sum = 0;
	for (int64_t i = 0; i < n; i++) {
		for (int k = 1; k <= batch; k++) {
			uint64_t wr_id = (uint64_t)(i * batch + k);
			int rc = post_one(qp, path, STUB_OP_WRITE, wr_id, lkey, addr, 1, remote_addr, rkey,
					  k == batch ? IBV_SEND_SIGNALED : 0, NULL);
			if (rc != 0)
				return -rc;
		}
		int got = poll_one(qp->send_cq, path, wc, capacity);
		if (got != 1 || wc[0].status != IBV_WC_SUCCESS)
			return got < 0 ? got : -EIO;
		sum += (int64_t)wc[0].wr_id;
	}
	return sum;
}

int64_t stub_bench_calls(int (*fn)(void *, void *, void *), void *a, void *b, void *c, int64_t n)
{
	int64_t sum = 0;
	for (int64_t i = 0; i < n; i++) {
		int (*volatile f)(void *, void *, void *) = fn; /* an indirect call each time, as through ibv_context_ops */
		sum += f(a, b, c) + 1;
	}
	return sum;
}
