/*
 * The C side of the binding-cost benchmark (benchmarks' BindingCostBenchmark): a C application posting and polling
 * on the very QP and CQ a Java QueuePair wraps, through verbs.h's static inline verbs -- the same function pointers
 * the Java binding calls. A separate translation unit from the provider (stub_provider.c), so that the compiler
 * cannot see through the function pointers: every call is an indirect call, as in a program linked against
 * libibverbs. Each post builds the request as QueuePair does (all of its fields, every time) and each poll reads what
 * CompletionQueue reads, so the difference between the two is what the Java binding adds.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "stub_provider.h"

static int post_legacy(struct ibv_qp *qp, int op, uint64_t wr_id, uint32_t lkey, uint64_t addr, uint32_t length,
		       uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	struct ibv_send_wr wr, *bad;
	wr.wr_id = wr_id;
	wr.next = NULL;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
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
			 uint32_t length, uint64_t remote_addr, uint32_t rkey, const uint64_t *atomic_value)
{
	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
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

int64_t stub_bench_post_poll(uint32_t qp_num, int extended, int op, uint32_t lkey, uint64_t addr, uint32_t length,
			     uint64_t remote_addr, uint32_t rkey, struct ibv_wc *wc, int capacity, int64_t n)
{
	struct ibv_qp *qp = stub_qp_by_number(qp_num);
	if (qp == NULL || capacity < 1)
		return -EINVAL;
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_cq *cq = qp->send_cq;
	if (extended != (qpx != NULL) || extended != stub_cq_is_extended(cq))
		return -EINVAL; /* the paths must be the ones the Java side measures */
	struct ibv_cq_ex *cqx = (struct ibv_cq_ex *)cq; /* ibv_cq_ex_to_cq's inverse: the provider made it so */
	uint64_t atomic_value = 42;
	int64_t sum = 0;
	for (int64_t i = 1; i <= n; i++) {
		int rc = extended
			? post_extended(qpx, op, (uint64_t)i, lkey, addr, length, remote_addr, rkey, &atomic_value)
			: post_legacy(qp, op, (uint64_t)i, lkey, addr, length, remote_addr, rkey);
		if (rc != 0)
			return -rc;
		int got = extended ? poll_extended(cqx, wc, capacity) : ibv_poll_cq(cq, capacity, wc);
		if (got != 1 || wc[0].status != IBV_WC_SUCCESS)
			return got < 0 ? got : -EIO;
		sum += (int64_t)wc[0].wr_id;
	}
	return sum;
}
