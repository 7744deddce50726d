package io.fabricd.probes.responder;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import java.net.InetSocketAddress;
import java.util.HexFormat;

/**
 * A UDP probe responder as a process of its own, for tests that put it in another network
 * namespace ({@code ip netns exec NS java -cp ... io.fabricd.probes.responder.ResponderProcess ADDR PORT KEYHEX}).
 * Prints "ready PORT" once it answers; runs until killed.
 */
public final class ResponderProcess {
    private ResponderProcess() {
    }

    public static void main(String[] args) throws Exception {
        ProbeKey key = new ProbeKey(HexFormat.of().parseHex(args[2]));
        UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress(args[0], Integer.parseInt(args[1])), key, 1_000_000, 100_000,
                new ResponderStats()).start();
        System.out.println("ready " + r.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
