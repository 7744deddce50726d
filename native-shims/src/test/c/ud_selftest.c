/*
 * ud_selftest: the fabricd_ud path without Java. Opens UD endpoints on two devices, sends N messages
 * from the second to the first and answers each back, as fabricd's requester and responder do.
 * Usage: ud_selftest DEV_A DEV_B GID_INDEX [N]   (e.g. in the Soft-RoCE VM: rxe0 rxe1 1 100)
 * Exit 0 when every message made the round trip.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fd_ud;
struct fd_ud *fabricd_ud_open(const char *, int, int, uint32_t, int, int, char *, int);
int fabricd_ud_info(struct fd_ud *, uint32_t *, uint16_t *, uint8_t *, int *);
int fabricd_ud_send(struct fd_ud *, const uint8_t *, int, uint32_t, uint32_t, const uint8_t *, int);
int fabricd_ud_recv(struct fd_ud *, uint8_t *, int, int, uint8_t *, uint32_t *, int *);
int fabricd_ud_reply(struct fd_ud *, uint32_t, const uint8_t *, int);
void fabricd_ud_close(struct fd_ud *);

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s DEV_A DEV_B GID_INDEX [N]\n", argv[0]);
        return 2;
    }
    int gi = atoi(argv[3]), n = argc > 4 ? atoi(argv[4]) : 100, ok = 0;
    char err[256] = "";
    uint32_t qkey = 0x0FAB0D01;
    struct fd_ud *a = fabricd_ud_open(argv[1], 1, gi, qkey, 4096, 64, err, sizeof err);
    if (!a) { fprintf(stderr, "open %s: %s\n", argv[1], err); return 1; }
    struct fd_ud *b = fabricd_ud_open(argv[2], 1, gi, qkey, 4096, 64, err, sizeof err);
    if (!b) { fprintf(stderr, "open %s: %s\n", argv[2], err); return 1; }
    uint32_t qa, qb; uint16_t la, lb; uint8_t ga[16], gb[16]; int ma, mb;
    if (fabricd_ud_info(a, &qa, &la, ga, &ma) || fabricd_ud_info(b, &qb, &lb, gb, &mb)) { fprintf(stderr, "info failed\n"); return 1; }
    printf("A %s qpn %u lid %u mtu %d; B %s qpn %u lid %u mtu %d\n", argv[1], qa, la, ma, argv[2], qb, lb, mb);
    uint8_t msg[256], in[4096], sg[16]; uint32_t sq; int sl;
    for (int i = 0; i < n; i++) {
        memset(msg, 0, sizeof msg);
        snprintf((char *)msg, sizeof msg, "probe %d", i);
        int r = fabricd_ud_send(b, ga, la, qa, qkey, msg, 64);
        if (r) { fprintf(stderr, "send %d: %d\n", i, r); continue; }
        int got = fabricd_ud_recv(a, in, sizeof in, 1000, sg, &sq, &sl);
        if (got <= 0) { fprintf(stderr, "A recv %d: %d\n", i, got); continue; }
        if (sq != qb) fprintf(stderr, "A: src qpn %u, expected %u\n", sq, qb);
        r = fabricd_ud_reply(a, qkey, in, got);
        if (r) { fprintf(stderr, "answer %d: %d\n", i, r); continue; }
        got = fabricd_ud_recv(b, in, sizeof in, 1000, sg, &sq, &sl);
        if (got <= 0) { fprintf(stderr, "B recv %d: %d\n", i, got); continue; }
        if (strcmp((char *)in, (char *)msg) == 0) ok++;
    }
    printf("%d of %d round trips\n", ok, n);
    fabricd_ud_close(a);
    fabricd_ud_close(b);
    return ok == n ? 0 : 1;
}
