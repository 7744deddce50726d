/*
 * fabricd_ud: the probe path over RDMA unreliable datagram (UD) queue pairs, for JNA. One endpoint
 * = device context, PD, completion channel, one CQ, one UD QP in RTS, one registered buffer cut into
 * receive slots and one send slot. ibv_post_send, ibv_post_recv and ibv_poll_cq are inline
 * functions in verbs.h, which is why this is C.
 *
 * Every received UD message starts with the 40-byte GRH area (filled on RoCE / global routes); the
 * payload follows. Address handles are cached per destination GID + LID (a small ring).
 * Not thread-safe: one endpoint per thread.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include "fabricd_shim.h"

#define GRH 40
#define AH_CACHE 64

struct fd_ah { uint8_t gid[16]; uint16_t lid; struct ibv_ah *ah; };

struct fd_ud {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *ch;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    int slot, depth, port, gid_index, is_roce;
    uint32_t qkey;
    struct fd_ah ahs[AH_CACHE];
    int next_ah;
    int send_busy;
    struct ibv_ah *reply_ah;   /* address of the last received message's sender (in the AH cache) */
    uint32_t reply_qpn;
    int spin_us;               /* busy-poll the CQ this long before sleeping in poll(2) */
    struct ibv_cq_ex *cqx;     /* the CQ as an extended CQ with completion timestamps; NULL without */
    uint64_t hca_khz;          /* the HCA's core clock (ibv_query_device_ex), to turn cycles into ns */
    uint64_t send_ts, recv_ts; /* raw completion timestamps of the last send and the last receive */
    struct ibv_wc *pending;    /* receive completions met while waiting for a send, handed out first */
    uint64_t *pending_ts;      /* their completion timestamps */
    int npending;
};

static int post_recv(struct fd_ud *u, int i)
{
    struct ibv_sge sge = { .addr = (uintptr_t)(u->buf + (size_t)i * u->slot), .length = (uint32_t)u->slot, .lkey = u->mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;
    return ibv_post_recv(u->qp, &wr, &bad);
}

void fabricd_ud_close(struct fd_ud *u)
{
    if (!u)
        return;
    for (int i = 0; i < AH_CACHE; i++)
        if (u->ahs[i].ah)
            ibv_destroy_ah(u->ahs[i].ah);
    if (u->qp) ibv_destroy_qp(u->qp);
    if (u->cq) ibv_destroy_cq(u->cq);
    if (u->ch) ibv_destroy_comp_channel(u->ch);
    if (u->mr) ibv_dereg_mr(u->mr);
    free(u->buf);
    free(u->pending);
    free(u->pending_ts);
    if (u->pd) ibv_dealloc_pd(u->pd);
    if (u->ctx) ibv_close_device(u->ctx);
    free(u);
}

/*
 * Opens a UD endpoint on device `name`, port `port`, sending from GID index `gid_index` (RoCE) with
 * Q_Key `qkey`; messages up to `max_msg` bytes, `depth` receive slots. Returns NULL and a message in
 * `err` on failure.
 */
struct fd_ud *fabricd_ud_open(const char *name, int port, int gid_index, uint32_t qkey, int max_msg, int depth,
                              char *err, int errlen)
{
    struct ibv_context *ctx = fabricd_open_context(name, err, errlen);
    if (!ctx)
        return NULL;
    struct fd_ud *u = calloc(1, sizeof(*u));
    u->ctx = ctx;
    u->port = port;
    u->gid_index = gid_index;
    u->qkey = qkey;
    u->depth = depth;
    u->slot = max_msg + GRH;
    struct ibv_port_attr pa;
    memset(&pa, 0, sizeof(pa));
    if ((errno = ibv_query_port(u->ctx, (uint8_t)port, &pa))) { fabricd_err(err, errlen, "ibv_query_port", errno); goto fail; }
    u->is_roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (!(u->pd = ibv_alloc_pd(u->ctx))) { fabricd_err(err, errlen, "ibv_alloc_pd", errno); goto fail; }
    u->buf = calloc((size_t)(depth + 1), (size_t)u->slot);
    u->pending = calloc((size_t)depth, sizeof(struct ibv_wc));
    u->pending_ts = calloc((size_t)depth, sizeof(uint64_t));
    if (!(u->mr = ibv_reg_mr(u->pd, u->buf, (size_t)(depth + 1) * u->slot, IBV_ACCESS_LOCAL_WRITE))) {
        fabricd_err(err, errlen, "ibv_reg_mr", errno); goto fail;
    }
    if (!(u->ch = ibv_create_comp_channel(u->ctx))) { fabricd_err(err, errlen, "ibv_create_comp_channel", errno); goto fail; }
    /* completion timestamps where the device has them (ConnectX: yes; rxe: no, so a plain CQ) */
    struct ibv_device_attr_ex dx;
    memset(&dx, 0, sizeof(dx));
    if (ibv_query_device_ex(u->ctx, NULL, &dx) == 0 && dx.completion_timestamp_mask && dx.hca_core_clock) {
        struct ibv_cq_init_attr_ex ca;
        memset(&ca, 0, sizeof(ca));
        ca.cqe = (uint32_t)depth + 16;
        ca.channel = u->ch;
        ca.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
        u->cqx = ibv_create_cq_ex(u->ctx, &ca);
        if (u->cqx) {
            u->cq = ibv_cq_ex_to_cq(u->cqx);
            u->hca_khz = dx.hca_core_clock;
        }
    }
    if (!u->cq && !(u->cq = ibv_create_cq(u->ctx, depth + 16, NULL, u->ch, 0))) { fabricd_err(err, errlen, "ibv_create_cq", errno); goto fail; }
    struct ibv_qp_init_attr ia = { .send_cq = u->cq, .recv_cq = u->cq, .qp_type = IBV_QPT_UD,
        .cap = { .max_send_wr = 16, .max_recv_wr = (uint32_t)depth, .max_send_sge = 1, .max_recv_sge = 1 } };
    if (!(u->qp = ibv_create_qp(u->pd, &ia))) { fabricd_err(err, errlen, "ibv_create_qp", errno); goto fail; }
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)port, .qkey = qkey };
    if ((errno = ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))) {
        fabricd_err(err, errlen, "ibv_modify_qp INIT", errno); goto fail;
    }
    for (int i = 0; i < depth; i++)
        if ((errno = post_recv(u, i))) { fabricd_err(err, errlen, "ibv_post_recv", errno); goto fail; }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    if ((errno = ibv_modify_qp(u->qp, &a, IBV_QP_STATE))) { fabricd_err(err, errlen, "ibv_modify_qp RTR", errno); goto fail; }
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 0;
    if ((errno = ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))) { fabricd_err(err, errlen, "ibv_modify_qp RTS", errno); goto fail; }
    if ((errno = ibv_req_notify_cq(u->cq, 0))) { fabricd_err(err, errlen, "ibv_req_notify_cq", errno); goto fail; }
    return u;
fail:
    fabricd_ud_close(u);
    return NULL;
}

/* The endpoint's address: qpn, lid, the 16 GID bytes of its GID index, active MTU in bytes. */
int fabricd_ud_info(struct fd_ud *u, uint32_t *qpn, uint16_t *lid, uint8_t *gid, int *active_mtu)
{
    struct ibv_port_attr pa;
    memset(&pa, 0, sizeof(pa));
    int e = ibv_query_port(u->ctx, (uint8_t)u->port, &pa);
    if (e)
        return -e;
    union ibv_gid g;
    if ((e = ibv_query_gid(u->ctx, (uint8_t)u->port, u->gid_index, &g)))
        return -e;
    memcpy(gid, g.raw, 16);
    *qpn = u->qp->qp_num;
    *lid = pa.lid;
    *active_mtu = 128 << pa.active_mtu;
    return 0;
}

static struct ibv_ah *ah_cached(struct fd_ud *u, const uint8_t *gid, uint16_t lid)
{
    for (int i = 0; i < AH_CACHE; i++)
        if (u->ahs[i].ah && u->ahs[i].lid == lid && memcmp(u->ahs[i].gid, gid, 16) == 0)
            return u->ahs[i].ah;
    return NULL;
}

/* Keeps ah in the cache ring under (gid, lid), destroying the entry it replaces. */
static struct ibv_ah *ah_keep(struct fd_ud *u, const uint8_t *gid, uint16_t lid, struct ibv_ah *ah)
{
    struct fd_ah *slot = &u->ahs[u->next_ah];
    u->next_ah = (u->next_ah + 1) % AH_CACHE;
    if (slot->ah) {
        if (slot->ah == u->reply_ah)
            u->reply_ah = NULL;
        ibv_destroy_ah(slot->ah);
    }
    memcpy(slot->gid, gid, 16);
    slot->lid = lid;
    slot->ah = ah;
    return ah;
}

static struct ibv_ah *ah_for(struct fd_ud *u, const uint8_t *gid, uint16_t lid)
{
    struct ibv_ah *cached = ah_cached(u, gid, lid);
    if (cached)
        return cached;
    struct ibv_ah_attr aa = { .dlid = lid, .port_num = (uint8_t)u->port, .sl = 0 };
    if (u->is_roce || lid == 0) {
        aa.is_global = 1;
        memcpy(aa.grh.dgid.raw, gid, 16);
        aa.grh.sgid_index = (uint8_t)u->gid_index;
        aa.grh.hop_limit = 64;
    }
    struct ibv_ah *ah = ibv_create_ah(u->pd, &aa);
    if (!ah)
        return NULL;
    return ah_keep(u, gid, lid, ah);
}

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static uint64_t cycles_to_ns(uint64_t cycles, uint64_t khz)
{
    return cycles / khz * 1000000ULL + cycles % khz * 1000000ULL / khz;
}

/*
 * Hardware completion times, in ns of the HCA clock, of the last send and the last receive this
 * endpoint completed: 1 when the device gives completion timestamps, 0 when it does not (rxe). A
 * requester that sent a probe and received its answer gets the round trip between its NIC's two
 * completions, free of its own scheduling delays.
 */
int fabricd_ud_hw_times(struct fd_ud *u, uint64_t *send_ns, uint64_t *recv_ns)
{
    if (!u->cqx || !u->hca_khz)
        return 0;
    *send_ns = cycles_to_ns(u->send_ts, u->hca_khz);
    *recv_ns = cycles_to_ns(u->recv_ts, u->hca_khz);
    return 1;
}

/* Busy-polls the CQ up to spin_us microseconds before a wait sleeps in poll(2) (0: never spin). */
void fabricd_ud_set_spin(struct fd_ud *u, int spin_us)
{
    u->spin_us = spin_us < 0 ? 0 : spin_us;
}

/*
 * Polls one completion into wc (and its raw completion timestamp into ts, 0 without an extended
 * CQ): 1, 0 when the CQ is empty, negative on error. With the extended CQ the fields are read one
 * by one (ibv_wc_read_*), and only those a failed completion has (wr_id, status).
 */
static int poll_one(struct fd_ud *u, struct ibv_wc *wc, uint64_t *ts)
{
    *ts = 0;
    if (!u->cqx)
        return ibv_poll_cq(u->cq, 1, wc);
    struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
    int r = ibv_start_poll(u->cqx, &pa);
    if (r == ENOENT)
        return 0;
    if (r)
        return -1;
    memset(wc, 0, sizeof(*wc));
    wc->wr_id = u->cqx->wr_id;
    wc->status = u->cqx->status;
    if (wc->status == IBV_WC_SUCCESS) {
        wc->opcode = ibv_wc_read_opcode(u->cqx);
        wc->byte_len = ibv_wc_read_byte_len(u->cqx);
        wc->qp_num = ibv_wc_read_qp_num(u->cqx);
        wc->src_qp = ibv_wc_read_src_qp(u->cqx);
        wc->wc_flags = ibv_wc_read_wc_flags(u->cqx);
        wc->slid = ibv_wc_read_slid(u->cqx);
        wc->sl = ibv_wc_read_sl(u->cqx);
        wc->dlid_path_bits = ibv_wc_read_dlid_path_bits(u->cqx);
        *ts = ibv_wc_read_completion_ts(u->cqx);
    }
    ibv_end_poll(u->cqx);
    return 1;
}

/*
 * Waits up to timeout_ms for a completion; handles send completions; returns 1 with the wc of a
 * receive, 0 on timeout. Spins on the CQ for the first spin_us, then sleeps on the completion
 * channel until the deadline (an event that finds the CQ empty - one left from the spin - does not
 * end the wait early).
 */
static int next_wc(struct fd_ud *u, struct ibv_wc *wc, int timeout_ms)
{
    long long start = now_us();
    long long deadline = start + (long long)timeout_ms * 1000;
    long long spin_until = start + (u->spin_us < (long long)timeout_ms * 1000 ? u->spin_us : (long long)timeout_ms * 1000);
    for (;;) {
        uint64_t ts;
        int n = poll_one(u, wc, &ts);
        if (n < 0)
            return -EIO;
        if (n == 1) {
            if (wc->wr_id == (uint64_t)u->depth) { /* the send slot's completion */
                u->send_busy = 0;
                u->send_ts = ts;
                if (wc->status != IBV_WC_SUCCESS)
                    return -EIO;
                continue;
            }
            u->recv_ts = ts;
            return 1;
        }
        long long now = now_us();
        if (now < spin_until)
            continue;
        if (now >= deadline)
            return 0;
        struct pollfd pfd = { .fd = u->ch->fd, .events = POLLIN };
        int r = poll(&pfd, 1, (int)((deadline - now + 999) / 1000));
        if (r < 0 && errno != EINTR)
            return -errno;
        if (r > 0) {
            struct ibv_cq *cq;
            void *cctx;
            if (ibv_get_cq_event(u->ch, &cq, &cctx) == 0) {
                ibv_ack_cq_events(cq, 1);
                ibv_req_notify_cq(cq, 0);
            }
        }
    }
}

static int post_send(struct fd_ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, const uint8_t *data, int len);

/* Waits (bounded) until the previous send completed, so the single send slot can be reused. */
static void wait_send(struct fd_ud *u)
{
    struct ibv_wc wc;
    for (int tries = 0; u->send_busy && tries < 1000; tries++) {
        int r = next_wc(u, &wc, 1);
        if (r == 1) {
            /* a receive while waiting for our send: keep it for the next fabricd_ud_recv */
            if (u->npending < u->depth) {
                u->pending_ts[u->npending] = u->recv_ts;
                u->pending[u->npending++] = wc;
            }
            else
                post_recv(u, (int)wc.wr_id);
        }
    }
}

/* Sends data[0,len) to (gid, lid, qpn, qkey). Waits for the previous send to complete. 0 or -errno. */
int fabricd_ud_send(struct fd_ud *u, const uint8_t *gid, int lid, uint32_t qpn, uint32_t qkey, const uint8_t *data, int len)
{
    if (len > u->slot - GRH)
        return -EMSGSIZE;
    wait_send(u);
    struct ibv_ah *ah = ah_for(u, gid, (uint16_t)lid);
    if (!ah)
        return errno ? -errno : -EINVAL;
    return post_send(u, ah, qpn, qkey, data, len);
}

/* Answers the sender of the last received message (its address from the completion and GRH). */
int fabricd_ud_reply(struct fd_ud *u, uint32_t qkey, const uint8_t *data, int len)
{
    if (len > u->slot - GRH)
        return -EMSGSIZE;
    if (!u->reply_ah)
        return -EDESTADDRREQ;
    wait_send(u);
    return post_send(u, u->reply_ah, u->reply_qpn, qkey, data, len);
}

static int post_send(struct fd_ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, const uint8_t *data, int len)
{
    uint8_t *s = u->buf + (size_t)u->depth * u->slot;
    memcpy(s, data, (size_t)len);
    struct ibv_sge sge = { .addr = (uintptr_t)s, .length = (uint32_t)len, .lkey = u->mr->lkey };
    struct ibv_send_wr wr = { .wr_id = (uint64_t)u->depth, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
        .send_flags = IBV_SEND_SIGNALED }, *bad;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = qpn;
    wr.wr.ud.remote_qkey = qkey;
    int e = ibv_post_send(u->qp, &wr, &bad);
    if (e)
        return -e;
    u->send_busy = 1;
    return 0;
}

/*
 * The sender's GID from a receive slot's 40-byte GRH area: on RoCE v2 over IPv4 the area holds 20
 * zero bytes and then the IPv4 header (source address at 12), given as ::ffff:a.b.c.d; otherwise a
 * GRH with the source GID at offset 8; zero without one.
 */
static void source_gid(const uint8_t *area, int has_grh, uint8_t *out)
{
    memset(out, 0, 16);
    if (!has_grh)
        return;
    int v4 = (area[20] >> 4) == 4;
    for (int i = 0; i < 20 && v4; i++)
        v4 = area[i] == 0;
    if (v4) {
        out[10] = 0xff;
        out[11] = 0xff;
        memcpy(out + 12, area + 20 + 12, 4);
    } else {
        memcpy(out, area + 8, 16);
    }
}

/*
 * Receives one message within timeout_ms: copies its payload (after the GRH) into out, the sender's
 * GID into src_gid (from the GRH; zero without one), its QPN and LID. Returns the payload length,
 * 0 on timeout, -errno on error.
 */
int fabricd_ud_recv(struct fd_ud *u, uint8_t *out, int outlen, int timeout_ms, uint8_t *src_gid, uint32_t *src_qpn, int *src_lid)
{
    struct ibv_wc wc;
    if (u->npending > 0) {
        wc = u->pending[0];
        u->recv_ts = u->pending_ts[0];
        --u->npending;
        memmove(u->pending, u->pending + 1, (size_t)u->npending * sizeof(wc));
        memmove(u->pending_ts, u->pending_ts + 1, (size_t)u->npending * sizeof(uint64_t));
    } else {
        int r = next_wc(u, &wc, timeout_ms);
        if (r <= 0)
            return r;
    }
    int i = (int)wc.wr_id;
    uint8_t *slot = u->buf + (size_t)i * u->slot;
    int n = -EIO;
    if (wc.status == IBV_WC_SUCCESS && wc.byte_len >= GRH) {
        n = (int)wc.byte_len - GRH;
        if (n > outlen)
            n = outlen;
        memcpy(out, slot + GRH, (size_t)n);
        source_gid(slot, wc.wc_flags & IBV_WC_GRH, src_gid);
        *src_qpn = wc.src_qp;
        *src_lid = wc.slid;
        /* the reply address: from the cache, else made from the completion and the GRH area while
         * it is still in the slot (ibv_create_ah_from_wc also covers RoCE v2 over IPv4); making one
         * per message costs a GID-table search and a kernel call */
        wait_send(u);
        u->reply_ah = ah_cached(u, src_gid, (uint16_t)wc.slid);
        if (!u->reply_ah) {
            struct ibv_ah *ah = ibv_create_ah_from_wc(u->pd, &wc, (struct ibv_grh *)slot, (uint8_t)u->port);
            u->reply_ah = ah ? ah_keep(u, src_gid, (uint16_t)wc.slid, ah) : NULL;
        }
        u->reply_qpn = wc.src_qp;
    }
    post_recv(u, i);
    return n;
}
