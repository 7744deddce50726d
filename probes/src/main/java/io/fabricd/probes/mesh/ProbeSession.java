package io.fabricd.probes.mesh;

import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.ProbeTransport;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;

/**
 * Sends {@code count} probes of one size through a transport, paced by {@code interval}, and collects
 * the answers on the same thread. A probe is timed from its send — the kernel's transmit stamp
 * where the transport has one (UDP on Linux), else just before the send call, the packet already
 * built and signed — to its answer's arrival: the kernel's arrival stamp where the transport has
 * one, else when the receive returned. The responder's hold time, which it reports in
 * the answer, is taken out: the RTT is the network's (and the wake-up of the responder's thread),
 * and the hosts' share — that hold plus the time from the answer's arrival to this thread reading
 * it — is reported apart. Where the local NIC timestamps completions (verbs on ConnectX; not rxe)
 * the network's share by the NIC's clock comes too.
 *
 * <p>An answer after {@code timeout} is late, not lost; one answered twice (a duplicated packet)
 * counts once and is counted as duplicated; one that arrives after the answer to a later probe is
 * counted as reordered, and still answered. After the last probe the session waits one more
 * timeout for answers and as long again for late ones.
 *
 * <p>Probes go out {@code interval} apart as ping's do: a send that runs late by more than an
 * interval (this thread descheduled, a pause of the JVM) restarts the schedule from itself, so a
 * stall never turns into a burst of back-to-back probes that would queue behind each other and
 * spend the responder's rate limit.
 */
public final class ProbeSession {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ProbeTransport transport;
    private final ProbeKey key;
    private final Duration interval;
    private final Duration timeout;

    public ProbeSession(ProbeTransport transport, ProbeKey key, Duration interval, Duration timeout) {
        this.transport = transport;
        this.key = key;
        this.interval = interval;
        this.timeout = timeout;
    }

    public ProbeResult run(String peer, String localDevice, String remoteDevice, int size, int count) throws IOException {
        if (size < ProbePacket.MIN_SIZE || size > transport.maxSize()) {
            throw new IllegalArgumentException("--size " + size + " outside " + ProbePacket.MIN_SIZE + ".." + transport.maxSize()
                    + " for " + transport.name());
        }
        long session = RANDOM.nextLong();
        byte[] out = new byte[size];
        byte[] in = new byte[Math.max(size, 2048) + 64];
        long[] sentAt = new long[count];
        long step = interval.toNanos();
        long to = timeout.toNanos();
        long due = System.nanoTime();
        int next = 0;
        long end = Long.MAX_VALUE;
        State st = new State(count);
        while (true) {
            long now = System.nanoTime();
            if (next < count && now - due >= 0) {
                new ProbePacket(ProbePacket.REQUEST, next, session, now, System.currentTimeMillis(), size).encode(out, key);
                sentAt[next] = transport.clock();
                try {
                    transport.send(out, size);
                    long tx = transport.sentNanos();
                    if (tx >= 0) {
                        sentAt[next] = tx; // the kernel's transmit stamp, where it gave one
                    }
                } catch (IOException e) {
                    // an unreachable route or a full buffer loses this probe; the session goes on
                }
                next++;
                // the next probe one interval after this one was due; after a stall of more than an
                // interval (this thread descheduled before or in the send, a pause of the JVM) one
                // interval after this send: the missed probes go out later at the same pace, never
                // as a burst to catch up
                long after = System.nanoTime();
                due = after - due > step ? after + step : due + step;
                if (next == count) {
                    end = System.nanoTime() + 2 * to;
                }
                // take what has arrived before the next send, so a late-running schedule never piles answers up
                int n;
                while ((n = transport.receive(in, 0)) >= 0) {
                    accept(st, in, n, session, next, size, sentAt, to, transport.clock());
                }
                continue;
            }
            if (next == count && (st.received + st.late == count || now >= end)) {
                break;
            }
            long wait = next < count ? due - now : end - now;
            int n = transport.receive(in, Math.max(wait, 100_000));
            if (n >= 0) {
                accept(st, in, n, session, next, size, sentAt, to, transport.clock());
            }
        }
        return new ProbeResult(peer, transport.name(), localDevice, remoteDevice, size, count, st.received, st.late,
                count - st.received - st.late, sorted(st.rtt, st.received), sorted(st.resp, st.received),
                sorted(st.host, st.received), st.networked > 0 ? sorted(st.network, st.networked) : null, st.duplicated,
                st.reordered, st.overloaded);
    }

    /** The first {@code n} of {@code values}, ascending. */
    private static long[] sorted(long[] values, int n) {
        long[] s = Arrays.copyOf(values, n);
        Arrays.sort(s);
        return s;
    }

    private static final class State {
        final long[] rtt;
        final long[] resp;
        final long[] host;
        final long[] network;
        final boolean[] answered;
        int received;
        int late;
        int networked;
        int duplicated;
        int reordered;
        /** The highest sequence answered so far. */
        int highest = -1;
        /** An answer said the responder dropped requests itself meanwhile. */
        boolean overloaded;

        State(int count) {
            rtt = new long[count];
            resp = new long[count];
            host = new long[count];
            network = new long[count];
            answered = new boolean[count];
        }
    }

    /** One answer, read at {@code readAt} on the transport's clock. */
    private void accept(State st, byte[] in, int n, long session, int sentSoFar, int size, long[] sentAt, long timeoutNanos,
                        long readAt) {
        long arrival = transport.arrivalNanos();
        long got = arrival >= 0 ? arrival : readAt;
        ProbePacket p;
        try {
            p = ProbePacket.decode(in, n, key);
        } catch (ProbePacket.RejectedException e) {
            return;
        }
        if (p.type() != ProbePacket.RESPONSE || p.session() != session || p.sequence() < 0 || p.sequence() >= sentSoFar
                || p.size() != size) {
            return;
        }
        int s = (int) p.sequence();
        if (st.answered[s]) {
            st.duplicated++;
            return;
        }
        st.answered[s] = true;
        if (s < st.highest) {
            st.reordered++;
        }
        st.highest = Math.max(st.highest, s);
        st.overloaded |= p.overloaded();
        long r = got - sentAt[s];
        if (r > timeoutNanos) {
            st.late++;
        } else {
            long hold = p.responderNanos();
            // never below zero: a clock step between send and arrival, or a responder's clock running fast
            st.rtt[st.received] = Math.max(0, r - hold);
            st.resp[st.received] = hold;
            st.host[st.received] = hold + (arrival >= 0 ? Math.max(0, readAt - arrival) : 0);
            st.received++;
            // the NIC's timestamps belong to the last send and the last receive: they time this
            // probe only when it is the last one sent
            long hw = s == sentSoFar - 1 ? transport.hardwareRttNanos() : -1;
            if (hw > 0) {
                st.network[st.networked++] = Math.max(0, hw - hold);
            }
        }
    }
}
