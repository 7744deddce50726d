/*
 * The floor under any collector that reads files: open, read and close every path of a list
 * (one per line), in C, with nothing else; prints the CPU time per pass. bench/cpu-compare.sh
 * feeds it the files fabricd and node_exporter opened, so "what the reads alone cost on this
 * machine" sits next to what each process spent (docs/benchmarks.md).
 *
 *   cc -O2 -o read-floor bench/read-floor.c && ./read-floor LIST [PASSES] [kept]
 *
 * With "kept" the files are opened once and each pass seeks to 0 and reads them again, as fabricd
 * does with the files it keeps open between collections (collection.max_open_files).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIST [PASSES]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    size_t n = 0, cap = 1024;
    char **paths = malloc(cap * sizeof *paths);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line) continue;
        if (n == cap) paths = realloc(paths, (cap *= 2) * sizeof *paths);
        paths[n++] = strdup(line);
    }
    fclose(f);
    int passes = argc > 2 ? atoi(argv[2]) : 20;
    static char buf[65536];
    int keep = argc > 3 && strcmp(argv[3], "kept") == 0;
    int *fds = calloc(n ? n : 1, sizeof *fds);
    for (size_t i = 0; keep && i < n; i++) fds[i] = open(paths[i], O_RDONLY | O_CLOEXEC);
    double best = -1, total = 0;
    for (int p = 0; p < passes; p++) {
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        for (size_t i = 0; i < n; i++) {
            if (keep) {
                if (fds[i] < 0 || lseek(fds[i], 0, SEEK_SET) < 0) continue;
                while (read(fds[i], buf, sizeof buf) > 0) {
                }
                continue;
            }
            int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            while (read(fd, buf, sizeof buf) > 0) {
            }
            close(fd);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
        total += ms;
        if (best < 0 || ms < best) best = ms;
    }
    printf("%zu files%s: %.2f ms per pass (best %.2f ms, %d passes)\n", n, keep ? " kept open" : "", total / passes, best, passes);
    return 0;
}
