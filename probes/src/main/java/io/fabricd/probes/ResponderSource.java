package io.fabricd.probes;

import java.net.SocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;

/** One socket of the UDP responder and its budget: the shared one, or a known peer's. */
final class ResponderSource {
    final DatagramChannel channel;
    final SocketAddress peer;
    final ResponderBudget budget;
    SelectionKey key;
    long lastUsed;

    ResponderSource(DatagramChannel channel, SocketAddress peer, ResponderBudget budget) {
        this.channel = channel;
        this.peer = peer;
        this.budget = budget;
        this.lastUsed = System.nanoTime();
    }
}
