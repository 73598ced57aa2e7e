/*
 * panama-rdma's stub provider: a libibverbs (rdma-core 56's ABI, compiled from its verbs.h) with one device,
 * "stub0", that completes every request at once. It exists to measure what the Java binding itself costs on the
 * real CPU (issue 15, item 3): verbs-ffm's QueuePair and CompletionQueue drive it through exactly the function
 * pointers they read from a real provider's structs (ibv_context_ops.post_send / poll_cq, verbs_context's
 * create_qp_ex / create_cq_ex / query_device_ex / query_port, ibv_qp_ex.wr_*, ibv_cq_ex.start_poll / read_*), and
 * stub_bench.c makes the same calls from C.
 *
 * How it becomes "the" libibverbs without LD_PRELOAD: it is built as libibverbs.so.1.14.56.1 with the soname
 * libibverbs.so.1 and rdma-core's symbol version nodes (libibverbs.map). Once a process has loaded it by its path,
 * the dynamic linker answers a later dlopen("libibverbs.so.1") -- verbs-ffm's Native.IBVERBS -- with it (glibc
 * matches a requested name against the sonames of loaded objects), and RdmaCore reads release 56.1 from its file
 * name and finds the version nodes that release exports. StubProvider (verbs-ffm's tests) does that.
 *
 * The device: one port, RoCE-like (InfiniBand transport, Ethernet link layer, one RoCE v2 GID), atomics, FLUSH
 * (global and persistent) and ATOMIC WRITE. A request moves no data (there is no peer): it is checked as a provider
 * checks it, inline data and the ATOMIC WRITE value are copied as a provider copies them, and a signaled request (or
 * every one, with sq_sig_all) puts a successful completion on the send CQ before the post returns. Receives are
 * accepted and never complete. Work queue and CQ are guarded by spinlocks as rxe guards them, so the cost of a call
 * is of the order of a software provider's.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "stub_provider.h"

#define STUB_MAX_QP_WR 4096
#define STUB_MAX_SGE 16
#define STUB_MAX_CQE 65536
#define STUB_MAX_INLINE 256
#define STUB_MAX_QPS 256
/* no real vendor's: RdmaCore.Quirk must not take the stub for rxe */
#define STUB_VENDOR_ID 0x5354u

/* ------------------------------------------------------------------------------------------ the device */

static struct ibv_device stub_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = STUB_DEVICE_NAME,
	.dev_name = "uverbs-stub0",
	.dev_path = "/nonexistent/stub0",
	.ibdev_path = "/nonexistent/stub0",
};

/* the context: verbs_context (which ends with the ibv_context) as libibverbs allocates it for a provider */
struct stub_context {
	struct verbs_context vctx;
};

struct stub_cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t qp_num;
	uint32_t wc_flags;
	__be32 imm_data;
};

struct stub_cq {
	struct ibv_cq_ex ex; /* first: an ibv_cq_ex begins with the members of an ibv_cq (ibv_cq_ex_to_cq is a cast) */
	int extended;
	pthread_spinlock_t lock;
	uint32_t mask; /* ring size - 1 */
	uint32_t head; /* next entry to consume */
	uint32_t tail; /* next entry to fill; tail - head entries are queued */
	struct stub_cqe current; /* the entry extended polling is positioned on */
	struct stub_cqe *ring;
};

/* a request being built between ibv_wr_start and ibv_wr_complete */
struct stub_wqe {
	uint64_t wr_id;
	unsigned int flags;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t rkey;
	uint64_t remote_addr;
	uint64_t operand; /* FetchAdd's addend, CmpSwap's compare, ATOMIC WRITE's value */
};

struct stub_qp {
	struct ibv_qp_ex ex; /* first: an ibv_qp_ex begins with its ibv_qp */
	int extended;
	int sq_sig_all;
	struct ibv_qp_cap cap;
	pthread_spinlock_t lock;
	uint32_t building; /* requests started since ibv_wr_start */
	int error;	   /* the first error of the batch, reported by ibv_wr_complete */
	struct stub_wqe *batch;
	uint32_t recvs_posted;
	uint8_t inline_copy[STUB_MAX_INLINE]; /* where inline bytes go, as into a provider's WQE */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* How often each entry point was called (enum stub_call): which calls the library makes, for tests. Plain counters,
 * read by one thread while nothing posts. */
static uint64_t call_counts[STUB_CALLS];

/* A call that does nothing, of post_send's shape: what a call into a provider costs by itself (stub_bench_calls). */
int stub_nop(void *a, void *b, void *c)
{
	(void)a;
	(void)b;
	(void)c;
	return 0;
}

void stub_call_counts(uint64_t counts[STUB_CALLS])
{
	memcpy(counts, call_counts, sizeof(call_counts));
}
static struct stub_qp *registry[STUB_MAX_QPS];
static uint32_t next_qp_num = 17;
static uint32_t next_key = 0x100;

static struct stub_cq *to_cq(struct ibv_cq *cq)
{
	return (struct stub_cq *)cq;
}

static struct stub_cq *to_cq_ex(struct ibv_cq_ex *cq)
{
	return (struct stub_cq *)cq;
}

static struct stub_qp *to_qp(struct ibv_qp *qp)
{
	return (struct stub_qp *)qp;
}

static struct stub_qp *to_qp_ex(struct ibv_qp_ex *qp)
{
	return (struct stub_qp *)qp;
}

/* ------------------------------------------------------------------------------------------ completions */

/* Queues a completion; ENOMEM when the CQ is full (the request is then refused, nothing overruns). */
static int cq_push(struct stub_cq *cq, const struct stub_cqe *e)
{
	int rc = 0;
	pthread_spin_lock(&cq->lock);
	if (cq->tail - cq->head > cq->mask)
		rc = ENOMEM;
	else
		cq->ring[cq->tail++ & cq->mask] = *e;
	pthread_spin_unlock(&cq->lock);
	return rc;
}

static int stub_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct stub_cq *cq = to_cq(ibcq);
	int n = 0;
	call_counts[STUB_CALL_POLL_CQ]++;
	pthread_spin_lock(&cq->lock);
	while (n < num_entries && cq->head != cq->tail) {
		const struct stub_cqe *e = &cq->ring[cq->head++ & cq->mask];
		struct ibv_wc *w = &wc[n++];
		w->wr_id = e->wr_id;
		w->status = e->status;
		w->opcode = e->opcode;
		w->vendor_err = 0;
		w->byte_len = e->byte_len;
		w->imm_data = e->imm_data;
		w->qp_num = e->qp_num;
		w->src_qp = 0;
		w->wc_flags = e->wc_flags;
		w->pkey_index = 0;
		w->slid = 0;
		w->sl = 0;
		w->dlid_path_bits = 0;
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

static int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}

/* Extended polling as rxe does it: the lock is held from a successful start_poll to end_poll. */
static void position(struct stub_cq *cq)
{
	cq->current = cq->ring[cq->head++ & cq->mask];
	cq->ex.wr_id = cq->current.wr_id;
	cq->ex.status = cq->current.status;
}

static int stub_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct stub_cq *cq = to_cq_ex(ex);
	(void)attr;
	call_counts[STUB_CALL_START_POLL]++;
	pthread_spin_lock(&cq->lock);
	if (cq->head == cq->tail) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	position(cq);
	return 0;
}

static int stub_next_poll(struct ibv_cq_ex *ex)
{
	struct stub_cq *cq = to_cq_ex(ex);
	if (cq->head == cq->tail)
		return ENOENT;
	position(cq);
	return 0;
}

static void stub_end_poll(struct ibv_cq_ex *ex)
{
	pthread_spin_unlock(&to_cq_ex(ex)->lock);
}

static enum ibv_wc_opcode stub_read_opcode(struct ibv_cq_ex *ex)
{
	return to_cq_ex(ex)->current.opcode;
}

static uint32_t stub_read_zero(struct ibv_cq_ex *ex)
{
	(void)ex;
	return 0;
}

static uint32_t stub_read_byte_len(struct ibv_cq_ex *ex)
{
	return to_cq_ex(ex)->current.byte_len;
}

static __be32 stub_read_imm_data(struct ibv_cq_ex *ex)
{
	return to_cq_ex(ex)->current.imm_data;
}

static uint32_t stub_read_qp_num(struct ibv_cq_ex *ex)
{
	return to_cq_ex(ex)->current.qp_num;
}

static unsigned int stub_read_wc_flags(struct ibv_cq_ex *ex)
{
	return to_cq_ex(ex)->current.wc_flags;
}

static uint8_t stub_read_zero8(struct ibv_cq_ex *ex)
{
	(void)ex;
	return 0;
}

static struct stub_cq *cq_alloc(struct ibv_context *context, int cqe, void *cq_context,
				struct ibv_comp_channel *channel, int extended)
{
	if (cqe < 1 || cqe > STUB_MAX_CQE || channel != NULL) {
		errno = channel != NULL ? EOPNOTSUPP : EINVAL; /* no completion channels: nothing would signal them */
		return NULL;
	}
	uint32_t size = 1;
	while (size < (uint32_t)cqe)
		size <<= 1;
	struct stub_cq *cq = calloc(1, sizeof(*cq));
	struct stub_cqe *ring = calloc(size, sizeof(*ring));
	if (cq == NULL || ring == NULL) {
		free(cq);
		free(ring);
		errno = ENOMEM;
		return NULL;
	}
	cq->ex.context = context;
	cq->ex.cq_context = cq_context;
	cq->ex.cqe = (int)size;
	pthread_mutex_init(&cq->ex.mutex, NULL);
	pthread_cond_init(&cq->ex.cond, NULL);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->extended = extended;
	cq->mask = size - 1;
	cq->ring = ring;
	if (extended) {
		cq->ex.start_poll = stub_start_poll;
		cq->ex.next_poll = stub_next_poll;
		cq->ex.end_poll = stub_end_poll;
		cq->ex.read_opcode = stub_read_opcode;
		cq->ex.read_vendor_err = stub_read_zero;
		cq->ex.read_byte_len = stub_read_byte_len;
		cq->ex.read_imm_data = stub_read_imm_data;
		cq->ex.read_qp_num = stub_read_qp_num;
		cq->ex.read_src_qp = stub_read_zero;
		cq->ex.read_wc_flags = stub_read_wc_flags;
		cq->ex.read_slid = stub_read_zero;
		cq->ex.read_sl = stub_read_zero8;
		cq->ex.read_dlid_path_bits = stub_read_zero8;
	}
	return cq;
}

static struct ibv_cq_ex *stub_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	if ((attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS) != 0 || attr->comp_mask != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct stub_cq *cq = cq_alloc(context, (int)attr->cqe, attr->cq_context, attr->channel, 1);
	return cq == NULL ? NULL : &cq->ex;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	(void)comp_vector;
	struct stub_cq *cq = cq_alloc(context, cqe, cq_context, channel, 0);
	return cq == NULL ? NULL : ibv_cq_ex_to_cq(&cq->ex);
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct stub_cq *cq = to_cq(ibcq);
	pthread_spin_destroy(&cq->lock);
	free(cq->ring);
	free(cq);
	return 0;
}

int stub_cq_is_extended(struct ibv_cq *cq)
{
	return to_cq(cq)->extended;
}

/* ------------------------------------------------------------------------------------------ sends */

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op, int *ok)
{
	*ok = 1;
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return IBV_WC_SEND;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		*ok = 0; /* FLUSH and ATOMIC WRITE only through ibv_wr_* (rxe refuses them in post_send too) */
		return IBV_WC_SEND;
	}
}

/* What every request reaches: a successful completion at once if signaled. */
static int complete_request(struct stub_qp *qp, uint64_t wr_id, unsigned int flags, enum ibv_wc_opcode opcode,
			    uint32_t byte_len)
{
	if (!(flags & IBV_SEND_SIGNALED) && !qp->sq_sig_all)
		return 0;
	struct stub_cqe e = {
		.wr_id = wr_id,
		.status = IBV_WC_SUCCESS,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp_num = qp->ex.qp_base.qp_num,
	};
	return cq_push(to_cq(qp->ex.qp_base.send_cq), &e);
}

static int stub_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct stub_qp *qp = to_qp(ibqp);
	int rc = 0;
	call_counts[STUB_CALL_POST_SEND]++;
	pthread_spin_lock(&qp->lock);
	for (; wr != NULL; wr = wr->next) {
		int known;
		enum ibv_wc_opcode opcode = wc_opcode(wr->opcode, &known);
		if (ibqp->state != IBV_QPS_RTS || !known || wr->num_sge < 0
		    || (uint32_t)wr->num_sge > qp->cap.max_send_sge) {
			rc = EINVAL;
			break;
		}
		uint32_t length = 0;
		for (int i = 0; i < wr->num_sge; i++)
			length += wr->sg_list[i].length;
		if (wr->send_flags & IBV_SEND_INLINE) {
			if (length > qp->cap.max_inline_data) {
				rc = EINVAL;
				break;
			}
			uint32_t at = 0;
			for (int i = 0; i < wr->num_sge; i++) {
				memcpy(qp->inline_copy + at, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				at += wr->sg_list[i].length;
			}
		}
		if (opcode == IBV_WC_COMP_SWAP || opcode == IBV_WC_FETCH_ADD)
			length = 8;
		rc = complete_request(qp, wr->wr_id, wr->send_flags, opcode, length);
		if (rc != 0)
			break;
	}
	if (rc != 0)
		*bad_wr = wr;
	pthread_spin_unlock(&qp->lock);
	return rc;
}

static int stub_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct stub_qp *qp = to_qp(ibqp);
	int rc = 0;
	pthread_spin_lock(&qp->lock);
	for (; wr != NULL; wr = wr->next) {
		if (ibqp->state == IBV_QPS_RESET || qp->recvs_posted >= qp->cap.max_recv_wr
		    || wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge) {
			rc = qp->recvs_posted >= qp->cap.max_recv_wr ? ENOMEM : EINVAL;
			*bad_wr = wr;
			break;
		}
		qp->recvs_posted++; /* no peer ever sends: it stays posted */
	}
	pthread_spin_unlock(&qp->lock);
	return rc;
}

static int stub_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)srq;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

/* The extended builders, as rxe's: wr_start locks the send queue, each wr_<op> starts a request, wr_complete
 * posts the batch (here: completes it) or reports its first error, and unlocks. */

static void stub_wr_start(struct ibv_qp_ex *ex)
{
	struct stub_qp *qp = to_qp_ex(ex);
	call_counts[STUB_CALL_WR_START]++;
	pthread_spin_lock(&qp->lock);
	qp->building = 0;
	qp->error = ex->qp_base.state == IBV_QPS_RTS ? 0 : EINVAL;
}

static struct stub_wqe *begin_wqe(struct stub_qp *qp, enum ibv_wc_opcode opcode, uint32_t rkey,
				  uint64_t remote_addr)
{
	static __thread struct stub_wqe discarded;
	if (qp->building == qp->cap.max_send_wr) {
		if (qp->error == 0)
			qp->error = ENOMEM;
		return &discarded;
	}
	struct stub_wqe *w = &qp->batch[qp->building++];
	w->wr_id = qp->ex.wr_id;
	w->flags = qp->ex.wr_flags;
	w->opcode = opcode;
	w->byte_len = 0;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	w->operand = 0;
	return w;
}

/* The request the data setters apply to: the last one started. */
static struct stub_wqe *current_wqe(struct stub_qp *qp)
{
	static __thread struct stub_wqe discarded;
	if (qp->building == 0) {
		if (qp->error == 0)
			qp->error = EINVAL;
		return &discarded;
	}
	return &qp->batch[qp->building - 1];
}

static void stub_wr_send(struct ibv_qp_ex *ex)
{
	begin_wqe(to_qp_ex(ex), IBV_WC_SEND, 0, 0);
}

static void stub_wr_send_imm(struct ibv_qp_ex *ex, __be32 imm)
{
	(void)imm;
	begin_wqe(to_qp_ex(ex), IBV_WC_SEND, 0, 0);
}

static void stub_wr_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr)
{
	begin_wqe(to_qp_ex(ex), IBV_WC_RDMA_WRITE, rkey, remote_addr);
}

static void stub_wr_rdma_write_imm(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, __be32 imm)
{
	(void)imm;
	begin_wqe(to_qp_ex(ex), IBV_WC_RDMA_WRITE, rkey, remote_addr);
}

static void stub_wr_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr)
{
	begin_wqe(to_qp_ex(ex), IBV_WC_RDMA_READ, rkey, remote_addr);
}

static void stub_wr_atomic_cmp_swp(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	(void)swap;
	begin_wqe(to_qp_ex(ex), IBV_WC_COMP_SWAP, rkey, remote_addr)->operand = compare;
}

static void stub_wr_atomic_fetch_add(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	begin_wqe(to_qp_ex(ex), IBV_WC_FETCH_ADD, rkey, remote_addr)->operand = add;
}

static void stub_wr_atomic_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr)
{
	struct stub_wqe *w = begin_wqe(to_qp_ex(ex), IBV_WC_ATOMIC_WRITE, rkey, remote_addr);
	memcpy(&w->operand, atomic_wr, sizeof(w->operand)); /* read during the call, as rxe does */
}

static void stub_wr_flush(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, size_t len, uint8_t type,
			  uint8_t level)
{
	struct stub_qp *qp = to_qp_ex(ex);
	struct stub_wqe *w = begin_wqe(qp, IBV_WC_FLUSH, rkey, remote_addr);
	if ((type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) != 0 || type == 0 || level > IBV_FLUSH_MR) {
		if (qp->error == 0)
			qp->error = EINVAL;
	}
	w->operand = len;
}

static void stub_wr_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct stub_qp *qp = to_qp_ex(ex);
	struct stub_wqe *w = current_wqe(qp);
	(void)lkey;
	(void)addr;
	w->byte_len = w->opcode == IBV_WC_COMP_SWAP || w->opcode == IBV_WC_FETCH_ADD ? 8 : length;
}

static void stub_wr_set_sge_list(struct ibv_qp_ex *ex, size_t num_sge, const struct ibv_sge *sg_list)
{
	struct stub_qp *qp = to_qp_ex(ex);
	struct stub_wqe *w = current_wqe(qp);
	if (num_sge > qp->cap.max_send_sge) {
		if (qp->error == 0)
			qp->error = EINVAL;
		return;
	}
	uint32_t length = 0;
	for (size_t i = 0; i < num_sge; i++)
		length += sg_list[i].length;
	w->byte_len = length;
}

static void stub_wr_set_inline_data(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	struct stub_qp *qp = to_qp_ex(ex);
	struct stub_wqe *w = current_wqe(qp);
	if (length > qp->cap.max_inline_data) {
		if (qp->error == 0)
			qp->error = EINVAL;
		return;
	}
	memcpy(qp->inline_copy, addr, length); /* the provider copies inline bytes during the call */
	w->byte_len = (uint32_t)length;
}

static void stub_wr_set_inline_data_list(struct ibv_qp_ex *ex, size_t num_buf, const struct ibv_data_buf *buf_list)
{
	struct stub_qp *qp = to_qp_ex(ex);
	struct stub_wqe *w = current_wqe(qp);
	size_t at = 0;
	for (size_t i = 0; i < num_buf; i++) {
		if (at + buf_list[i].length > qp->cap.max_inline_data) {
			if (qp->error == 0)
				qp->error = EINVAL;
			return;
		}
		memcpy(qp->inline_copy + at, buf_list[i].addr, buf_list[i].length);
		at += buf_list[i].length;
	}
	w->byte_len = (uint32_t)at;
}

static int stub_wr_complete(struct ibv_qp_ex *ex)
{
	struct stub_qp *qp = to_qp_ex(ex);
	int rc = qp->error;
	for (uint32_t i = 0; rc == 0 && i < qp->building; i++) {
		struct stub_wqe *w = &qp->batch[i];
		rc = complete_request(qp, w->wr_id, w->flags, w->opcode, w->byte_len);
	}
	qp->building = 0;
	pthread_spin_unlock(&qp->lock);
	return rc;
}

static void stub_wr_abort(struct ibv_qp_ex *ex)
{
	struct stub_qp *qp = to_qp_ex(ex);
	qp->building = 0;
	pthread_spin_unlock(&qp->lock);
}

/* ------------------------------------------------------------------------------------------ queue pairs */

static const uint64_t STUB_SEND_OPS = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
	| IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ
	| IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_FLUSH
	| IBV_QP_EX_WITH_ATOMIC_WRITE;

static struct ibv_qp *qp_create(struct ibv_context *context, struct ibv_pd *pd, struct ibv_qp_init_attr_ex *attr,
				int extended)
{
	struct ibv_qp_cap *cap = &attr->cap;
	if (attr->qp_type != IBV_QPT_RC || attr->srq != NULL || attr->send_cq == NULL || attr->recv_cq == NULL
	    || cap->max_send_wr < 1 || cap->max_send_wr > STUB_MAX_QP_WR || cap->max_recv_wr > STUB_MAX_QP_WR
	    || cap->max_send_sge > STUB_MAX_SGE || cap->max_recv_sge > STUB_MAX_SGE
	    || cap->max_inline_data > STUB_MAX_INLINE) {
		errno = EINVAL;
		return NULL;
	}
	if (extended && (attr->send_ops_flags & ~STUB_SEND_OPS) != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct stub_qp *qp = calloc(1, sizeof(*qp));
	struct stub_wqe *batch = calloc(cap->max_send_wr, sizeof(*batch));
	if (qp == NULL || batch == NULL) {
		free(qp);
		free(batch);
		errno = ENOMEM;
		return NULL;
	}
	struct ibv_qp *base = &qp->ex.qp_base;
	base->context = context;
	base->qp_context = attr->qp_context;
	base->pd = pd;
	base->send_cq = attr->send_cq;
	base->recv_cq = attr->recv_cq;
	base->state = IBV_QPS_RESET;
	base->qp_type = IBV_QPT_RC;
	pthread_mutex_init(&base->mutex, NULL);
	pthread_cond_init(&base->cond, NULL);
	pthread_spin_init(&qp->lock, PTHREAD_PROCESS_PRIVATE);
	qp->extended = extended;
	qp->sq_sig_all = attr->sq_sig_all;
	if (cap->max_send_sge == 0)
		cap->max_send_sge = 1;
	if (cap->max_recv_sge == 0)
		cap->max_recv_sge = 1;
	qp->cap = *cap; /* what was asked is granted, and written back as providers do */
	qp->batch = batch;
	if (extended) {
		uint64_t ops = attr->send_ops_flags;
		struct ibv_qp_ex *ex = &qp->ex;
		ex->wr_start = stub_wr_start;
		ex->wr_complete = stub_wr_complete;
		ex->wr_abort = stub_wr_abort;
		ex->wr_set_sge = stub_wr_set_sge;
		ex->wr_set_sge_list = stub_wr_set_sge_list;
		ex->wr_set_inline_data = stub_wr_set_inline_data;
		ex->wr_set_inline_data_list = stub_wr_set_inline_data_list;
		/* a builder is filled only where its IBV_QP_EX_WITH_* flag was asked, as rxe does */
		if (ops & IBV_QP_EX_WITH_SEND)
			ex->wr_send = stub_wr_send;
		if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
			ex->wr_send_imm = stub_wr_send_imm;
		if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
			ex->wr_rdma_write = stub_wr_rdma_write;
		if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
			ex->wr_rdma_write_imm = stub_wr_rdma_write_imm;
		if (ops & IBV_QP_EX_WITH_RDMA_READ)
			ex->wr_rdma_read = stub_wr_rdma_read;
		if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
			ex->wr_atomic_cmp_swp = stub_wr_atomic_cmp_swp;
		if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
			ex->wr_atomic_fetch_add = stub_wr_atomic_fetch_add;
		if (ops & IBV_QP_EX_WITH_FLUSH)
			ex->wr_flush = stub_wr_flush;
		if (ops & IBV_QP_EX_WITH_ATOMIC_WRITE)
			ex->wr_atomic_write = stub_wr_atomic_write;
	}
	pthread_mutex_lock(&registry_lock);
	int slot = -1;
	for (int i = 0; i < STUB_MAX_QPS; i++) {
		if (registry[i] == NULL) {
			slot = i;
			break;
		}
	}
	if (slot >= 0) {
		registry[slot] = qp;
		base->qp_num = next_qp_num++;
		base->handle = base->qp_num;
	}
	pthread_mutex_unlock(&registry_lock);
	if (slot < 0) {
		free(batch);
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	return base;
}

static struct ibv_qp *stub_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	if ((attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) != 0
	    || !(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		attr->send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ;
	return qp_create(context, attr->pd, attr, 1);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	/* the legacy attributes are the head of the extended ones; the rest is read as zero */
	struct ibv_qp_init_attr_ex ex = {0};
	memcpy(&ex, attr, sizeof(*attr));
	struct ibv_qp *qp = qp_create(pd->context, pd, &ex, 0);
	if (qp != NULL)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return to_qp(qp)->extended ? &to_qp(qp)->ex : NULL;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state > IBV_QPS_ERR)
			return EINVAL;
		pthread_spin_lock(&to_qp(qp)->lock);
		qp->state = attr->qp_state;
		pthread_spin_unlock(&to_qp(qp)->lock);
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	(void)attr_mask;
	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = to_qp(qp)->cap;
	init_attr->cap = to_qp(qp)->cap;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->qp_type = qp->qp_type;
	init_attr->sq_sig_all = to_qp(qp)->sq_sig_all;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct stub_qp *s = to_qp(qp);
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < STUB_MAX_QPS; i++) {
		if (registry[i] == s)
			registry[i] = NULL;
	}
	pthread_mutex_unlock(&registry_lock);
	pthread_spin_destroy(&s->lock);
	free(s->batch);
	free(s);
	return 0;
}

struct ibv_qp *stub_qp_by_number(uint32_t qp_num)
{
	struct ibv_qp *found = NULL;
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < STUB_MAX_QPS; i++) {
		if (registry[i] != NULL && registry[i]->ex.qp_base.qp_num == qp_num)
			found = &registry[i]->ex.qp_base;
	}
	pthread_mutex_unlock(&registry_lock);
	return found;
}

/* ------------------------------------------------------------------------------------------ device, port, PD, MR */

static void device_attr(struct ibv_device_attr_ex *a)
{
	memset(a, 0, sizeof(*a));
	struct ibv_device_attr *o = &a->orig_attr;
	strcpy(o->fw_ver, "panama-rdma stub 1");
	o->node_guid = htobe64(0x0200000000005354ULL);
	o->sys_image_guid = o->node_guid;
	o->max_mr_size = 1ULL << 40;
	o->page_size_cap = 4096;
	o->vendor_id = STUB_VENDOR_ID;
	o->vendor_part_id = 1;
	o->max_qp = STUB_MAX_QPS;
	o->max_qp_wr = STUB_MAX_QP_WR;
	o->max_sge = STUB_MAX_SGE;
	o->max_sge_rd = STUB_MAX_SGE;
	o->max_cq = 1024;
	o->max_cqe = STUB_MAX_CQE;
	o->max_mr = 1 << 16;
	o->max_pd = 1024;
	o->max_qp_rd_atom = 16;
	o->max_qp_init_rd_atom = 16;
	o->max_res_rd_atom = 16 * STUB_MAX_QPS;
	o->atomic_cap = IBV_ATOMIC_HCA;
	o->max_srq = 0;
	o->max_pkeys = 1;
	o->phys_port_cnt = 1;
	o->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN;
	a->device_cap_flags_ex = o->device_cap_flags | IB_UVERBS_DEVICE_FLUSH_GLOBAL
		| IB_UVERBS_DEVICE_FLUSH_PERSISTENT | IB_UVERBS_DEVICE_ATOMIC_WRITE;
	a->phys_port_cnt_ex = 1;
}

static int stub_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr, size_t attr_size)
{
	(void)context;
	(void)input;
	struct ibv_device_attr_ex a;
	if (attr_size < sizeof(struct ibv_device_attr))
		return EINVAL;
	device_attr(&a);
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr_out)
{
	struct ibv_device_attr_ex a;
	(void)context;
	device_attr(&a);
	*device_attr_out = a.orig_attr;
	return 0;
}

static int stub_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr,
			   size_t port_attr_len)
{
	(void)context;
	if (port_num != 1)
		return EINVAL;
	struct ibv_port_attr a = {
		.state = IBV_PORT_ACTIVE,
		.max_mtu = IBV_MTU_4096,
		.active_mtu = IBV_MTU_1024,
		.gid_tbl_len = 1,
		.max_msg_sz = 1U << 31,
		.pkey_tbl_len = 1,
		.active_width = 1,
		.active_speed = 1,
		.phys_state = 5, /* LinkUp */
		.link_layer = IBV_LINK_LAYER_ETHERNET,
	};
	memset(port_attr, 0, port_attr_len);
	memcpy(port_attr, &a, port_attr_len < sizeof(a) ? port_attr_len : sizeof(a));
	return 0;
}

#undef ibv_query_port
/* the exported symbol behind verbs.h's ibv_query_port macro: the struct without active_speed_ex */
int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr)
{
	return stub_query_port(context, port_num, (struct ibv_port_attr *)port_attr,
			       offsetof(struct ibv_port_attr, active_speed_ex));
}

/* One GID: RoCE v2 over ::ffff:10.77.0.83 */
static void gid_entry(struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->gid.raw[10] = 0xff;
	e->gid.raw[11] = 0xff;
	e->gid.raw[12] = 10;
	e->gid.raw[13] = 77;
	e->gid.raw[14] = 0;
	e->gid.raw[15] = 83;
	e->gid_index = 0;
	e->port_num = 1;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 1;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	(void)context;
	if (port_num != 1 || index != 0)
		return -1;
	struct ibv_gid_entry e;
	gid_entry(&e);
	*gid = e.gid;
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	(void)context;
	(void)flags;
	if (port_num != 1 || gid_index != 0 || entry_size < sizeof(*entry))
		return EINVAL;
	gid_entry(entry);
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	(void)context;
	(void)flags;
	if (entry_size < sizeof(*entries))
		return -EINVAL;
	if (max_entries < 1)
		return -EINVAL;
	gid_entry(entries);
	return 1;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = context;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	(void)iova;
	(void)access;
	if (length == 0) {
		errno = EINVAL;
		return NULL;
	}
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	pthread_mutex_lock(&registry_lock);
	mr->handle = mr->lkey = mr->rkey = next_key++;
	pthread_mutex_unlock(&registry_lock);
	return mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

/* ------------------------------------------------------------------------------------------ opening the device */

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(2, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &stub_device;
	if (num_devices != NULL)
		*num_devices = 1;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	(void)device;
	return htobe64(0x0200000000005354ULL);
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	if (device != &stub_device) {
		errno = ENODEV;
		return NULL;
	}
	struct stub_context *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	struct verbs_context *v = &c->vctx;
	struct ibv_context *ctx = &v->context;
	/* as _verbs_init_and_alloc_context (libibverbs/device.c): sz is libibverbs' sizeof(struct verbs_context) */
	v->sz = sizeof(*v);
	v->query_port = stub_query_port;
	v->query_device_ex = stub_query_device_ex;
	v->create_cq_ex = stub_create_cq_ex;
	v->create_qp_ex = stub_create_qp_ex;
	ctx->device = device;
	ctx->cmd_fd = -1;
	ctx->async_fd = -1;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->ops.poll_cq = stub_poll_cq;
	ctx->ops.req_notify_cq = stub_req_notify_cq;
	ctx->ops.post_send = stub_post_send;
	ctx->ops.post_recv = stub_post_recv;
	ctx->ops.post_srq_recv = stub_post_srq_recv;
	return ctx;
}

int ibv_close_device(struct ibv_context *context)
{
	/* the ibv_context is the last member of the verbs_context that opened it */
	free((char *)context - offsetof(struct stub_context, vctx.context));
	return 0;
}

/* ------------------------------------------------------------------------------------------ not offered */
/* The library binds these; the stub has no completion channels, SRQs or async events, and says so. */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	(void)context;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	(void)channel;
	return EINVAL;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	(void)channel;
	(void)cq;
	(void)cq_context;
	errno = EOPNOTSUPP;
	return -1;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	(void)pd;
	(void)srq_init_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	(void)srq;
	(void)srq_attr;
	(void)srq_attr_mask;
	return EOPNOTSUPP;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	return EINVAL;
}

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	(void)context;
	(void)event;
	errno = EOPNOTSUPP;
	return -1;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	return status == IBV_WC_SUCCESS ? "success" : "stub: unexpected status";
}

const char *ibv_event_type_str(enum ibv_event_type event)
{
	(void)event;
	return "stub: no async events";
}

/* ------------------------------------------------------------------------------------------ version probes */
/* Symbols RdmaCoreDetection asks for at their version nodes (dlvsym): with them the stub proves what its file name
 * says, rdma-core 53..56 (IBVERBS_1.14 and IBVERBS_PRIVATE_34's ibv_cmd_create_cq_ex2). Never called. */

int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	(void)opcode;
	return "stub";
}

int ibv_cmd_alloc_pd(void);
int ibv_cmd_alloc_pd(void)
{
	return EOPNOTSUPP;
}

int ibv_cmd_create_cq_ex2(void);
int ibv_cmd_create_cq_ex2(void)
{
	return EOPNOTSUPP;
}

void __verbs_log(void);
void __verbs_log(void)
{
}
