/*
 * fabricd_verbs: the libibverbs calls JNA cannot make. ibv_query_port is an inline function in
 * rdma-core's verbs.h (it wraps ___ibv_query_port with the caller's struct size), so it has no
 * stable exported symbol to bind; this shim calls it from C and hands plain ints back.
 *
 * ibv_get_device_list returns NULL (not an empty list) on a kernel without RDMA support
 * (errno ENOSYS, ibv_get_device_list(3)); ibv_free_device_list(NULL) crashes, so NULL is answered
 * with -errno here and never freed (docs/spec/softroce-pitfalls.md, pitfall 7).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>
#include "fabricd_shim.h"

void fabricd_err(char *err, int errlen, const char *what, int e)
{
    if (err && errlen > 0)
        snprintf(err, (size_t)errlen, "%s: %s", what, strerror(e));
}

struct ibv_context *fabricd_open_context(const char *name, char *err, int errlen)
{
    int num = 0;
    struct ibv_device **list = ibv_get_device_list(&num);
    if (!list) {
        fabricd_err(err, errlen, "ibv_get_device_list", errno ? errno : ENOSYS);
        return NULL;
    }
    struct ibv_device *dev = NULL;
    for (int i = 0; i < num; i++)
        if (strcmp(ibv_get_device_name(list[i]), name) == 0)
            dev = list[i];
    struct ibv_context *ctx = dev ? ibv_open_device(dev) : NULL;
    int e = dev ? errno : ENODEV;
    ibv_free_device_list(list);
    if (!ctx)
        fabricd_err(err, errlen, dev ? "ibv_open_device" : name, e);
    return ctx;
}

#define FD_PORT_FIELDS 8

/*
 * Queries device `name`: writes its max_qp, and for ports 1..n (n <= max_ports) the fields
 * {port, state, max_mtu, active_mtu, gid_tbl_len, link_layer, active_width, active_speed}
 * (ibverbs enum values) into out[(port-1)*8 ...]; a port whose query failed gets port = -errno.
 * Returns the number of ports, or -errno: -ENODEV when no such device, -ENOSYS when the kernel
 * has no RDMA support.
 */
int fabricd_verbs_query(const char *name, long long *max_qp, int *out, int max_ports)
{
    int num = 0, rc = -ENODEV;
    struct ibv_device **list = ibv_get_device_list(&num);
    if (list == NULL)
        return errno ? -errno : -ENOSYS;
    for (int i = 0; i < num; i++) {
        if (strcmp(ibv_get_device_name(list[i]), name) != 0)
            continue;
        struct ibv_context *ctx = ibv_open_device(list[i]);
        if (ctx == NULL) {
            rc = errno ? -errno : -EIO;
            break;
        }
        struct ibv_device_attr da;
        memset(&da, 0, sizeof(da));
        int err = ibv_query_device(ctx, &da);
        if (err) {
            rc = -err;
            ibv_close_device(ctx);
            break;
        }
        *max_qp = da.max_qp;
        int n = da.phys_port_cnt < max_ports ? da.phys_port_cnt : max_ports;
        for (int p = 1; p <= n; p++) {
            struct ibv_port_attr pa;
            int *o = out + (p - 1) * FD_PORT_FIELDS;
            memset(&pa, 0, sizeof(pa));
            err = ibv_query_port(ctx, (uint8_t)p, &pa);
            if (err) {
                o[0] = -err;
                continue;
            }
            o[0] = p;
            o[1] = pa.state;
            o[2] = pa.max_mtu;
            o[3] = pa.active_mtu;
            o[4] = pa.gid_tbl_len;
            o[5] = pa.link_layer;
            o[6] = pa.active_width;
            o[7] = pa.active_speed;
        }
        rc = n;
        ibv_close_device(ctx);
        break;
    }
    ibv_free_device_list(list);
    return rc;
}
