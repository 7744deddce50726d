package io.fabricd.agent.cli;

import io.fabricd.probes.peers.EndpointClient;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The PEER arguments of {@code probe} and {@code bw}, checked before anything is measured: each is
 * HOST:PORT and its host resolves. A name that does not resolve is said as such, not as a
 * connection that failed.
 */
final class PeerAddresses {
    private PeerAddresses() {
    }

    /** IllegalArgumentException (exit 2) naming every PEER that is no HOST:PORT or whose host does not resolve. */
    static void check(List<String> peers) {
        List<String> problems = new ArrayList<>();
        for (String peer : peers) {
            String why = problem(peer);
            if (why != null) {
                problems.add(why);
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
    }

    /** What is wrong with one PEER, or null. */
    static String problem(String peer) {
        URI uri;
        try {
            uri = URI.create("http://" + peer + "/");
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || uri.getPort() < 0 || uri.getRawUserInfo() != null
                || !peer.equals(uri.getRawAuthority())) {
            return "PEER '" + peer + "' is not HOST:PORT (another agent's HTTP address, like 10.0.0.2:9530)";
        }
        String host = EndpointClient.host(peer);
        try {
            InetAddress.getAllByName(host);
            return null;
        } catch (UnknownHostException e) {
            return "cannot resolve host " + host + " (PEER " + peer + "): check the name, or give the agent's IP address";
        }
    }
}
