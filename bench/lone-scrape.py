#!/usr/bin/env python3
"""Lone scrapes: one scrape every GAP seconds, as Prometheus scrapes a target (every 15 s), timed
from the client (request sent to last byte read). A scrape that comes alone finds the server's
per-request code cold (not compiled, caches gone), which a back-to-back loop never shows.

    bench/lone-scrape.py URL [SCRAPES] [GAP_S] [WARMUP]     (defaults 30 1.1 20)

GZIP=1 asks for a gzip-compressed body (Accept-Encoding: gzip), as Prometheus does.
WARMUP_GAP=S spaces the warm-up scrapes S seconds apart instead of GAP_S: with many warm-up scrapes
close together (WARMUP=300, WARMUP_GAP=0.01) the lone scrapes that follow meet compiled code, as
they do on an agent that has been scraped for hours ("steady" in docs/benchmarks.md), while each
still comes alone (caches cold, the event loop asleep).

Alternates a scrape over one kept-alive connection with a scrape over a new connection, GAP
seconds apart; prints median / p90 / max of each in ms. Used by bench/scrape-compare.sh (LONE=N).
"""
import http.client
import os
import statistics
import sys
import time
import urllib.parse


def main():
    url = urllib.parse.urlsplit(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    gap = float(sys.argv[3]) if len(sys.argv) > 3 else 1.1
    warm = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    warm_gap = float(os.environ.get("WARMUP_GAP", gap))
    path = url.path + ("?" + url.query if url.query else "")
    headers = {"Accept-Encoding": "gzip"} if os.environ.get("GZIP") == "1" else {}
    kept = http.client.HTTPConnection(url.hostname, url.port, timeout=10)

    def scrape(conn):
        t0 = time.perf_counter()
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        body = r.read()
        t = (time.perf_counter() - t0) * 1000
        if r.status != 200 or not body:
            raise SystemExit(f"{sys.argv[1]}: HTTP {r.status}")
        if headers and r.getheader("Content-Encoding") != "gzip":
            raise SystemExit(f"{sys.argv[1]}: asked for gzip, got {r.getheader('Content-Encoding')}")
        return t

    def fresh():
        c = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        try:
            t0 = time.perf_counter()
            c.connect()
            return (time.perf_counter() - t0) * 1000 + scrape(c)
        finally:
            c.close()

    times = {"kept-alive": [], "new connection": []}
    for i in range(warm + n):
        if i == warm:
            time.sleep(gap)
        for name, f in (("kept-alive", lambda: scrape(kept)), ("new connection", fresh)):
            time.sleep(gap if i >= warm else warm_gap)
            t = f()
            if i >= warm:
                times[name].append(t)
    for name, ts in times.items():
        ts.sort()
        p90 = ts[min(len(ts) - 1, int(len(ts) * 0.9))]
        print(f"{name}: median {statistics.median(ts):.2f} / p90 {p90:.2f} / max {ts[-1]:.2f} ms ({len(ts)} scrapes, {gap} s apart)")


if __name__ == "__main__":
    main()
