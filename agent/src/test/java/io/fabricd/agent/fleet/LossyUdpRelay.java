package io.fabricd.agent.fleet;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A UDP relay in front of one probe responder that drops a share of the answers (seeded), for any
 * number of requesters at once: each requester (source address) gets a socket of its own towards
 * the responder, so that the responder sees a steady source per requester as without the relay.
 * The lossy path of probes (docs/testing.md: the probes module's fault relay does one requester).
 */
public final class LossyUdpRelay implements AutoCloseable {
    private final DatagramChannel front;
    private final InetSocketAddress target;
    private final double drop;
    private final Random random = new Random(20270105);
    private final Map<SocketAddress, DatagramChannel> backs = new ConcurrentHashMap<>();
    private volatile boolean closed;
    public final AtomicInteger forwarded = new AtomicInteger();
    public final AtomicInteger dropped = new AtomicInteger();

    /** Listens at {@code front}, relays to {@code target}, drops {@code drop} of the answers. */
    public LossyUdpRelay(InetSocketAddress frontAddress, InetSocketAddress target, double drop) throws IOException {
        this.front = DatagramChannel.open().bind(frontAddress);
        this.target = target;
        this.drop = drop;
        Thread t = new Thread(this::requests, "lossy-relay");
        t.setDaemon(true);
        t.start();
    }

    private void requests() {
        ByteBuffer buf = ByteBuffer.allocate(65536);
        while (!closed) {
            try {
                buf.clear();
                SocketAddress from = front.receive(buf);
                DatagramChannel back = backs.get(from);
                if (back == null) {
                    back = DatagramChannel.open().bind(new InetSocketAddress(target.getAddress(), 0)).connect(target);
                    backs.put(from, back);
                    DatagramChannel b = back;
                    Thread t = new Thread(() -> answers(b, from), "lossy-relay-back");
                    t.setDaemon(true);
                    t.start();
                }
                back.write(buf.flip());
                forwarded.incrementAndGet();
            } catch (IOException e) {
                if (!closed) {
                    continue; // one bad datagram, an ICMP error: go on
                }
            }
        }
    }

    private void answers(DatagramChannel back, SocketAddress client) {
        ByteBuffer buf = ByteBuffer.allocate(65536);
        while (!closed) {
            try {
                buf.clear();
                back.read(buf);
                boolean lose;
                synchronized (random) {
                    lose = random.nextDouble() < drop;
                }
                if (lose) {
                    dropped.incrementAndGet();
                    continue;
                }
                front.send(buf.flip(), client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        front.close();
        for (DatagramChannel b : backs.values()) {
            b.close();
        }
    }
}
