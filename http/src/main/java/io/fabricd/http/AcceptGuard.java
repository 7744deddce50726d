package io.fabricd.http;

import io.netty.channel.ChannelFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.vertx.core.impl.transports.NioTransport;
import io.vertx.core.spi.transport.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound below {@link ConnectionLimits}: Vert.x's NIO transport with a server socket that
 * closes a new connection at accept, before Netty or Vert.x build anything for it:
 *
 * <ul>
 *   <li>while {@code acceptCap} accepted connections are open, whatever its source (the absolute
 *       cap, sized from the heap by {@link HeapBudget}), but for sources answered recently
 *       ({@link KnownSources}: scrapers, the kubelet), which have {@link #KNOWN_ROOM} more;</li>
 *   <li>while {@code heavySourceCap} are open, when its source address holds two or more.</li>
 * </ul>
 *
 * <p>Why: the acceptor thread hands every accepted socket to the event loop, which builds its
 * pipeline and connection object (~8 KiB) and only then runs the connection handler that closes
 * one for room. A local flood accepts faster than one event loop builds and closes, and the queue
 * in between grew until a 96 MiB heap ran out (IdleConnectionFloodIT); a bound per source address
 * alone let a flood from thousands of addresses through. Counted here from accept to close, the
 * connections in that queue are bounded too. Each connection let in is handed to
 * {@link UnreadAnswers}, which bounds the answers they leave unread.
 */
final class AcceptGuard implements io.vertx.core.transport.Transport { // NOPMD: beside the SPI's Transport
    /** Connections beyond the absolute cap let in from known sources. */
    static final int KNOWN_ROOM = HeapBudget.MIN_ACCEPT_ROOM;
    private final int heavySourceCap;
    private final int acceptCap;
    private final KnownSources known;
    private final UnreadAnswers unread;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();

    /**
     * @param heavySourceCap beyond this many open, a source holding two or more gets no more
     * @param acceptCap      beyond this many open, only known sources get in, {@link #KNOWN_ROOM} more
     * @param unread         told of every connection accepted, to bound the answers they leave unread
     */
    AcceptGuard(int heavySourceCap, int acceptCap, KnownSources known, UnreadAnswers unread) {
        this.heavySourceCap = heavySourceCap;
        this.acceptCap = acceptCap;
        this.known = known;
        this.unread = unread;
    }

    /** Connections closed at accept so far. */
    long refused() {
        return refused.get();
    }

    /** Accepted and not yet closed (registered or waiting for the event loop). */
    int open() {
        return open.get();
    }

    @Override
    public String name() {
        return "nio";
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    /** NIO, but for the server socket of TCP connections: {@link Guarded}. */
    @Override
    public Transport implementation() {
        return new NioTransport() {
            @Override
            public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
                return domainSocket ? super.serverChannelFactory(true) : Guarded::new;
            }
        };
    }

    /**
     * A source holding fewer connections than this is let in beyond the heavy-source cap: a
     * scraper (one connection at a time) keeps getting answers while a flood's sources are refused.
     */
    private static final int LIGHT_SOURCE = 2;
    /** Open connections per source address (from accept to close). */
    private final ConcurrentHashMap<String, Integer> perSource = new ConcurrentHashMap<>();

    /** The source address of a connection, as Vert.x writes it ("" when the socket cannot say). */
    private static String remote(SocketChannel ch) {
        try {
            return ch.getRemoteAddress() instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress().getHostAddress() : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** Whether a new connection from {@code source} is closed at accept; see the class comment. */
    private boolean refuse(String source) {
        int n = open.get();
        if (n >= acceptCap && (n - acceptCap >= KNOWN_ROOM || !known.known(source))) {
            return true;
        }
        // a known source (the kubelet's node address, a scraper) is not refused for holding two
        return n >= heavySourceCap && perSource.getOrDefault(source, 0) >= LIGHT_SOURCE && !known.known(source);
    }

    /** The server socket: accepts as Netty's does, and closes at once beyond the caps. */
    private final class Guarded extends NioServerSocketChannel {
        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            for (int i = 0; i < 64; i++) { // refused ones cost nothing: on to the next in the same turn
                SocketChannel ch = javaChannel().accept();
                if (ch == null) {
                    return 0;
                }
                String source = remote(ch);
                if (refuse(source)) {
                    refused.incrementAndGet();
                    try {
                        ch.setOption(StandardSocketOptions.SO_LINGER, 0); // a reset: no TIME_WAIT kept for a flood
                    } catch (IOException | UnsupportedOperationException e) {
                        // closed plainly then
                    }
                    ch.close();
                    continue;
                }
                try {
                    NioSocketChannel child = new NioSocketChannel(this, ch);
                    open.incrementAndGet();
                    perSource.merge(source, 1, Integer::sum);
                    child.closeFuture().addListener(f -> {
                        open.decrementAndGet();
                        perSource.computeIfPresent(source, (k, n) -> n == 1 ? null : n - 1);
                    });
                    unread.add(child);
                    buf.add(child);
                    return 1;
                } catch (Throwable t) {
                    ch.close();
                    throw t;
                }
            }
            return 0;
        }
    }
}
