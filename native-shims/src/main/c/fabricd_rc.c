/*
 * fabricd_rc: bandwidth over RDMA reliable connected (RC) queue pairs, for JNA, the way perftest's
 * ib_write_bw measures it. One endpoint = device context, PD, one CQ, `nqps` RC QPs and one
 * registered buffer of `size` bytes per QP. The side that writes posts RDMA WRITEs of `size` bytes
 * from its buffers into the peer's, keeping up to `depth` in flight per QP, and signals one write in
 * `depth / 2` (or every one, when depth is 1); the side written to only keeps its QPs open (RDMA
 * WRITE needs no receiver CPU). No bulk goes out before the peer's QPs acknowledged a first write of
 * one byte each: the addresses a test writes to come from the peer's messages, and only a QP
 * connected to this one can acknowledge.
 *
 * ibv_post_send and ibv_poll_cq are inline functions in verbs.h, which is why this is C.
 * Not thread-safe: one endpoint per thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "fabricd_shim.h"

#define MAX_QPS 64
#define STALL_NS 3000000000LL  /* writes in flight and none completed this long: the peer is gone */

struct fd_rc {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp[MAX_QPS];
    struct ibv_mr *mr;
    uint8_t *buf;
    size_t size;
    int nqps, port, gid_index, depth, is_roce;
    uint32_t psn[MAX_QPS];
    enum ibv_mtu active_mtu;
};

void fabricd_rc_close(struct fd_rc *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nqps; i++)
        if (r->qp[i])
            ibv_destroy_qp(r->qp[i]);
    if (r->cq) ibv_destroy_cq(r->cq);
    if (r->mr) ibv_dereg_mr(r->mr);
    free(r->buf);
    if (r->pd) ibv_dealloc_pd(r->pd);
    if (r->ctx) ibv_close_device(r->ctx);
    free(r);
}

/*
 * Opens `nqps` RC QPs (in INIT, the peer may write into their buffers) on device `name`, port
 * `port`, GID index `gid_index`, with a buffer of `size` bytes each and `depth` writes in flight per
 * QP. NULL and a message in `err` on failure.
 */
struct fd_rc *fabricd_rc_open(const char *name, int port, int gid_index, long size, int nqps, int depth, char *err, int errlen)
{
    if (nqps < 1 || nqps > MAX_QPS || size < 1 || depth < 1) {
        fabricd_err(err, errlen, "fabricd_rc_open", EINVAL);
        return NULL;
    }
    struct ibv_context *ctx = fabricd_open_context(name, err, errlen);
    if (!ctx)
        return NULL;
    struct fd_rc *r = calloc(1, sizeof(*r));
    r->ctx = ctx;
    r->port = port;
    r->gid_index = gid_index;
    r->size = (size_t)size;
    r->depth = depth;
    struct ibv_port_attr pa;
    memset(&pa, 0, sizeof(pa));
    if ((errno = ibv_query_port(r->ctx, (uint8_t)port, &pa))) { fabricd_err(err, errlen, "ibv_query_port", errno); goto fail; }
    r->is_roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    r->active_mtu = pa.active_mtu;
    if (!(r->pd = ibv_alloc_pd(r->ctx))) { fabricd_err(err, errlen, "ibv_alloc_pd", errno); goto fail; }
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign((void **)&r->buf, (size_t)page, r->size * (size_t)nqps)) {
        r->buf = NULL;
        fabricd_err(err, errlen, "posix_memalign", ENOMEM); goto fail;
    }
    memset(r->buf, 0, r->size * (size_t)nqps);
    if (!(r->mr = ibv_reg_mr(r->pd, r->buf, r->size * (size_t)nqps,
                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))) {
        fabricd_err(err, errlen, "ibv_reg_mr", errno); goto fail;
    }
    if (!(r->cq = ibv_create_cq(r->ctx, nqps * depth + 16, NULL, NULL, 0))) { fabricd_err(err, errlen, "ibv_create_cq", errno); goto fail; }
    for (int i = 0; i < nqps; i++) {
        struct ibv_qp_init_attr ia = { .send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = (uint32_t)depth, .max_recv_wr = (uint32_t)depth, .max_send_sge = 1, .max_recv_sge = 1 } };
        if (!(r->qp[i] = ibv_create_qp(r->pd, &ia))) {
            /* a device without RC (or out of QPs) says so here */
            fabricd_err(err, errlen, "ibv_create_qp RC", errno); goto fail;
        }
        r->nqps = i + 1;
        struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)port,
            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE };
        if ((errno = ibv_modify_qp(r->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))) {
            fabricd_err(err, errlen, "ibv_modify_qp INIT", errno); goto fail;
        }
        r->psn[i] = (uint32_t)(lrand48() & 0xffffff);
    }
    return r;
fail:
    fabricd_rc_close(r);
    return NULL;
}

/*
 * QP `i`'s address for the peer: qpn, first PSN, lid, the 16 GID bytes of the GID index, the rkey
 * and address of its buffer, the port's active MTU in bytes. 0 or -errno.
 */
int fabricd_rc_info(struct fd_rc *r, int i, uint32_t *qpn, uint32_t *psn, uint16_t *lid, uint8_t *gid, uint32_t *rkey,
                    uint64_t *addr, int *mtu)
{
    if (i < 0 || i >= r->nqps)
        return -EINVAL;
    struct ibv_port_attr pa;
    memset(&pa, 0, sizeof(pa));
    int e = ibv_query_port(r->ctx, (uint8_t)r->port, &pa);
    if (e)
        return -e;
    union ibv_gid g;
    if ((e = ibv_query_gid(r->ctx, (uint8_t)r->port, r->gid_index, &g)))
        return -e;
    memcpy(gid, g.raw, 16);
    *qpn = r->qp[i]->qp_num;
    *psn = r->psn[i];
    *lid = pa.lid;
    *rkey = r->mr->rkey;
    *addr = (uint64_t)(uintptr_t)(r->buf + (size_t)i * r->size);
    *mtu = 128 << pa.active_mtu;
    return 0;
}

static enum ibv_mtu mtu_enum(int bytes)
{
    switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
    }
}

/*
 * Connects QP `i` to the peer's QP (its qpn, first PSN, lid, GID, active MTU in bytes): RTR with the
 * lower of the two MTUs, then RTS. 0, or -errno with a message in `err`.
 */
int fabricd_rc_connect(struct fd_rc *r, int i, uint32_t qpn, uint32_t psn, int lid, const uint8_t *gid, int mtu,
                       char *err, int errlen)
{
    if (i < 0 || i >= r->nqps)
        return -EINVAL;
    enum ibv_mtu m = mtu_enum(mtu);
    if (r->active_mtu < m)
        m = r->active_mtu;
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = m;
    a.dest_qp_num = qpn;
    a.rq_psn = psn & 0xffffff;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = (uint16_t)lid;
    a.ah_attr.port_num = (uint8_t)r->port;
    if (r->is_roce || lid == 0) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, gid, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    int e = ibv_modify_qp(r->qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                                            | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (e) {
        fabricd_err(err, errlen, "ibv_modify_qp RTR", e);
        return -e;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = r->psn[i];
    a.max_rd_atomic = 1;
    e = ibv_modify_qp(r->qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN
                                        | IBV_QP_MAX_QP_RD_ATOMIC);
    if (e) {
        fabricd_err(err, errlen, "ibv_modify_qp RTS", e);
        return -e;
    }
    return 0;
}

/* Posts one receive of `size` bytes into QP q's buffer (wr_id: the QP). */
static int post_recv(struct fd_rc *r, int q)
{
    struct ibv_sge sge = { .addr = (uintptr_t)(r->buf + (size_t)q * r->size), .length = (uint32_t)r->size, .lkey = r->mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = (uint64_t)q, .sg_list = &sge, .num_sge = 1 }, *bad;
    return ibv_post_recv(r->qp[q], &wr, &bad);
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Before any bulk, the peer's queue pairs prove themselves: one signalled RDMA WRITE of one byte per
 * QP, into the peer's buffer, each of which must complete. Only a QP at the peer's address that is
 * connected to this one acknowledges it: addresses that name anything else (a host without such a
 * QP, named in an offer or a start by a key holder) get that byte and its retries, never the bulk.
 * 0, or -errno with a message in `err`.
 */
static int prove_peer(struct fd_rc *r, const uint64_t *raddr, const uint32_t *rkey, char *err, int errlen)
{
    for (int q = 0; q < r->nqps; q++) {
        struct ibv_sge sge = { .addr = (uintptr_t)(r->buf + (size_t)q * r->size), .length = 1, .lkey = r->mr->lkey };
        struct ibv_send_wr wr = { .wr_id = (uint64_t)q, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                                  .send_flags = IBV_SEND_SIGNALED }, *bad;
        wr.wr.rdma.remote_addr = raddr[q];
        wr.wr.rdma.rkey = rkey[q];
        int e = ibv_post_send(r->qp[q], &wr, &bad);
        if (e) {
            fabricd_err(err, errlen, "ibv_post_send", e);
            return -e;
        }
    }
    struct ibv_wc wc[32];
    long long start = now_ns();
    for (int left = r->nqps; left > 0;) {
        int n = ibv_poll_cq(r->cq, 32, wc);
        if (n < 0) {
            fabricd_err(err, errlen, "ibv_poll_cq", EIO);
            return -EIO;
        }
        for (int k = 0; k < n; k++) {
            if (wc[k].status != IBV_WC_SUCCESS) {
                if (err && errlen > 0)
                    snprintf(err, (size_t)errlen, "the peer's queue pairs did not take a first write (%s): nothing more was sent to"
                             " them", ibv_wc_status_str(wc[k].status));
                return -EIO;
            }
            left--;
        }
        if (n == 0 && now_ns() - start > STALL_NS) {
            if (err && errlen > 0)
                snprintf(err, (size_t)errlen, "no queue pair at the peer's address acknowledged a first write for %lld s: nothing"
                         " more was sent to it", STALL_NS / 1000000000LL);
            return -ETIMEDOUT;
        }
    }
    return 0;
}

/*
 * Writes (send = 0) or sends (send = 1: SENDs into the receives the peer posted) for `duration_ms`,
 * once the peer's QPs proved themselves (prove_peer): every QP keeps up to `depth` RDMA WRITEs of
 * `size` bytes in flight into
 * the peer's buffer (raddr[i], rkey[i]), then the writes in flight complete. Out: bytes and
 * messages completed and the nanoseconds from the first post to the last completion. 0, or -errno
 * with a message in `err`: a failed completion, or none for 3 s while writes are in flight (the
 * peer went away).
 */
int fabricd_rc_write(struct fd_rc *r, int send, const uint64_t *raddr, const uint32_t *rkey, int duration_ms,
                     uint64_t *bytes, uint64_t *msgs, uint64_t *elapsed_ns, char *err, int errlen)
{
    int every = r->depth > 1 ? r->depth / 2 : 1;   /* one signalled write in `every` */
    int inflight[MAX_QPS] = { 0 };                 /* unsignalled and signalled writes not yet completed */
    int since_signal[MAX_QPS] = { 0 };
    uint64_t done = 0;
    int proved = prove_peer(r, raddr, rkey, err, errlen);
    if (proved < 0)
        return proved;
    struct ibv_wc wc[32];
    long long start = now_ns();
    long long end = start + (long long)duration_ms * 1000000LL;
    int posting = 1, total_inflight = 0;
    long long last_progress = start;
    while (posting || total_inflight > 0) {
        if (posting && now_ns() >= end)
            posting = 0;
        for (int q = 0; q < r->nqps; q++) {
            /* while posting, fill the queue; after, one signalled write ends a QP's unsignalled tail */
            while (posting ? inflight[q] < r->depth : since_signal[q] > 0 && inflight[q] < r->depth) {
                struct ibv_sge sge = { .addr = (uintptr_t)(r->buf + (size_t)q * r->size), .length = (uint32_t)r->size,
                                       .lkey = r->mr->lkey };
                struct ibv_send_wr wr = { .wr_id = (uint64_t)q, .sg_list = &sge, .num_sge = 1,
                                          .opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE }, *bad;
                if (!send) {
                    wr.wr.rdma.remote_addr = raddr[q];
                    wr.wr.rdma.rkey = rkey[q];
                }
                /* the write that fills the queue is signalled too, so a full queue always has one to wait for;
                 * a signalled completion stands for itself and the unsignalled ones before it */
                if (++since_signal[q] >= every || inflight[q] + 1 == r->depth || !posting) {
                    wr.send_flags = IBV_SEND_SIGNALED;
                    wr.wr_id = ((uint64_t)since_signal[q] << 8) | (uint64_t)q;
                    since_signal[q] = 0;
                }
                int e = ibv_post_send(r->qp[q], &wr, &bad);
                if (e) {
                    fabricd_err(err, errlen, "ibv_post_send", e);
                    return -e;
                }
                inflight[q]++;
                total_inflight++;
            }
        }
        int n = ibv_poll_cq(r->cq, 32, wc);
        if (n < 0) {
            fabricd_err(err, errlen, "ibv_poll_cq", EIO);
            return -EIO;
        }
        for (int k = 0; k < n; k++) {
            int q = (int)(wc[k].wr_id & 0xff);
            int count = (int)(wc[k].wr_id >> 8);
            if (wc[k].status != IBV_WC_SUCCESS) {
                if (err && errlen > 0)
                    snprintf(err, (size_t)errlen, "%s completion: %s", send ? "SEND" : "RDMA WRITE", ibv_wc_status_str(wc[k].status));
                return -EIO;
            }
            if (q < r->nqps) {
                inflight[q] -= count;
                total_inflight -= count;
                done += (uint64_t)count;
            }
        }
        long long t = now_ns();
        if (n > 0)
            last_progress = t;
        else if (total_inflight > 0 && t - last_progress > STALL_NS) {
            /* a peer that went away: hardware reports retries exceeded within seconds, rxe may never */
            if (err && errlen > 0)
                snprintf(err, (size_t)errlen, "no %s completed for %lld s: the peer's queue pairs stopped answering",
                         send ? "SEND" : "RDMA WRITE", STALL_NS / 1000000000LL);
            return -ETIMEDOUT;
        }
    }
    *elapsed_ns = (uint64_t)(now_ns() - start);
    *msgs = done;
    *bytes = done * (uint64_t)r->size;
    return 0;
}

/*
 * The receiving side of SENDs: keeps `depth` receives posted per QP and posts each again as it
 * completes, until *stop is set (by another thread) or `limit_ms` pass. It polls without pause, as
 * ib_send_bw's server does: a receive posted late is a receiver-not-ready pause for the sender
 * (a 50 us nap here cost a third of the bandwidth in the Soft-RoCE VM). Out: bytes and messages
 * received, ns from the first to the last. 0, or -errno with a message in `err`.
 */
int fabricd_rc_receive(struct fd_rc *r, volatile int *stop, int limit_ms, uint64_t *bytes, uint64_t *msgs, uint64_t *elapsed_ns,
                       char *err, int errlen)
{
    for (int q = 0; q < r->nqps; q++)
        for (int k = 0; k < r->depth; k++)
            if (post_recv(r, q)) {
                fabricd_err(err, errlen, "ibv_post_recv", errno ? errno : EINVAL);
                return -EIO;
            }
    struct ibv_wc wc[32];
    long long start = now_ns(), first = 0, last = 0;
    long long end = start + (long long)limit_ms * 1000000LL;
    uint64_t got = 0, n_bytes = 0;
    while (!*stop && now_ns() < end) {
        int n = ibv_poll_cq(r->cq, 32, wc);
        if (n < 0) {
            fabricd_err(err, errlen, "ibv_poll_cq", EIO);
            return -EIO;
        }
        for (int k = 0; k < n; k++) {
            if (wc[k].status != IBV_WC_SUCCESS) {
                if (wc[k].status == IBV_WC_WR_FLUSH_ERR)
                    continue;
                if (err && errlen > 0)
                    snprintf(err, (size_t)errlen, "receive completion: %s", ibv_wc_status_str(wc[k].status));
                return -EIO;
            }
            long long t = now_ns();
            if (!first)
                first = t;
            last = t;
            got++;
            n_bytes += wc[k].byte_len;
            post_recv(r, (int)wc[k].wr_id);
        }
    }
    *bytes = n_bytes;
    *msgs = got;
    *elapsed_ns = first ? (uint64_t)(last - first) : 0;
    return 0;
}
