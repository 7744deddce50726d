/*
 * The floor a UDP pingmesh can reach on this machine: a plain C ping-pong with the same pacing and
 * size as fabricd's probes, so that fabricd's UDP RTT can be compared with what the kernel and two
 * blocking threads cost (bench/udp-rtt.sh).
 *
 *   udp-floor serve PORT                        answer every datagram to its sender
 *   udp-floor ping HOST PORT COUNT SIZE GAP_US  COUNT probes of SIZE bytes, one every GAP_US,
 *                                               each answer awaited (1 s at most); prints
 *                                               "sent N answered N p50_us X p99_us Y min_us Z"
 *
 * Build: cc -O2 -o /tmp/udp-floor bench/udp-floor.c
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *) a, y = *(const long long *) b;
    return x < y ? -1 : x > y;
}

static int serve(int port) {
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (bind(s, (struct sockaddr *) &a, sizeof a) != 0) {
        perror("bind");
        return 1;
    }
    char buf[65536];
    for (;;) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(s, buf, sizeof buf, 0, (struct sockaddr *) &from, &fl);
        if (n > 0) {
            sendto(s, buf, n, 0, (struct sockaddr *) &from, fl);
        }
    }
}

static int ping(const char *host, int port, int count, int size, int gap_us) {
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *ai;
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    if (getaddrinfo(host, p, &hints, &ai) != 0) {
        fprintf(stderr, "cannot resolve %s\n", host);
        return 1;
    }
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    if (connect(s, ai->ai_addr, ai->ai_addrlen) != 0) {
        perror("connect");
        return 1;
    }
    char *buf = calloc(1, size > 16 ? size : 16);
    long long *rtt = calloc(count, sizeof *rtt);
    int answered = 0;
    long long start = now_ns();
    for (int i = 0; i < count; i++) {
        long long due = start + (long long) i * gap_us * 1000;
        long long t;
        while ((t = now_ns()) < due) {
            struct timespec d = {0, (due - t) > 50000 ? (due - t) - 50000 : 0};
            if (d.tv_nsec > 0) {
                nanosleep(&d, NULL);
            }
        }
        memcpy(buf, &i, sizeof i);
        long long t0 = now_ns();
        send(s, buf, size, 0);
        for (;;) {
            struct pollfd pf = {.fd = s, .events = POLLIN};
            if (poll(&pf, 1, 1000) <= 0) {
                break;
            }
            int seq;
            ssize_t n = recv(s, buf, size, 0);
            if (n >= (ssize_t) sizeof seq && (memcpy(&seq, buf, sizeof seq), seq == i)) {
                rtt[answered++] = now_ns() - t0;
                break;
            }
        }
    }
    qsort(rtt, answered, sizeof *rtt, cmp);
    if (answered == 0) {
        printf("sent %d answered 0\n", count);
        return 1;
    }
    printf("sent %d answered %d p50_us %.1f p99_us %.1f min_us %.1f\n", count, answered, rtt[(answered - 1) / 2] / 1e3,
           rtt[(int) (0.99 * (answered - 1))] / 1e3, rtt[0] / 1e3);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "serve") == 0) {
        return serve(atoi(argv[2]));
    }
    if (argc == 7 && strcmp(argv[1], "ping") == 0) {
        return ping(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    }
    fprintf(stderr, "usage: %s serve PORT | ping HOST PORT COUNT SIZE GAP_US\n", argv[0]);
    return 2;
}
