package io.fabricd.agent.preflight;

import com.fasterxml.jackson.core.JacksonException;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.OneLine;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Reading the preflight requests' bodies: JSON of the path's record ({@link PreflightWire}: unknown
 * fields ignored, no number silently truncated, no version newer than this build's), peers as
 * HOST:PORT, each problem one line for a 400.
 */
final class Requests {
    /** Longest HOST:PORT taken: a DNS name (253) and a port. */
    static final int MAX_PEER_CHARS = 261;

    /** A request refused with 400 and this one line. */
    static final class Bad extends Exception {
        private static final long serialVersionUID = 1L;

        Bad(String message) {
            super(message);
        }
    }

    private Requests() {
    }

    /** The body as {@code type}; an empty body as {@code empty}. */
    static <T extends PreflightWire.Versioned> T read(byte[] body, Class<T> type, T empty) throws Bad {
        if (body.length == 0 && empty != null) {
            return empty;
        }
        try {
            T t = PreflightWire.REQUESTS.readValue(body, type);
            if (t == null) {
                throw new Bad("not a preflight request: the body is JSON null, not an object");
            }
            if (t.version() != null && t.version() > PreflightWire.VERSION) {
                throw new Bad("the request is of preflight wire version " + t.version() + ", this agent reads up to "
                        + PreflightWire.VERSION + ": upgrade the agent to the gate's release");
            }
            return t;
        } catch (JacksonException e) {
            throw new Bad("not a preflight request: " + unreadable(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new Bad("not a preflight request: " + unreadable(e.getMessage()));
        }
    }

    /** The peers in order without repeats, each HOST:PORT, {@code min} to {@code max} of them. */
    static List<String> peers(List<String> peers, int min, int max) throws Bad {
        List<String> in = peers == null ? List.of() : peers;
        if (in.size() < min || in.size() > max) {
            throw new Bad("peers must list " + min + " to " + max + " agents (HOST:PORT), not " + in.size());
        }
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (String p : in) {
            String why = notHostPort(p);
            if (why != null) {
                throw new Bad(why);
            }
            out.add(p);
        }
        return new ArrayList<>(out);
    }

    /**
     * What is wrong with an agent's address, or null when it is HOST:PORT (a name, an IPv4
     * address or [IPv6], and a port; nothing else). Nothing is resolved here.
     */
    static String notHostPort(String peer) {
        if (peer == null) {
            return "a peer is null, not HOST:PORT";
        }
        String shown = OneLine.of(peer, 40);
        if (peer.isEmpty() || peer.length() > MAX_PEER_CHARS || peer.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
            return "peer '" + shown + "' is not HOST:PORT (another agent's HTTP address, like 10.0.0.2:9530)";
        }
        URI uri;
        try {
            uri = URI.create("http://" + peer + "/");
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || uri.getPort() < 1 || uri.getPort() > 65_535 || uri.getRawUserInfo() != null
                || !peer.equals(uri.getRawAuthority())) {
            return "peer '" + shown + "' is not HOST:PORT (another agent's HTTP address, like 10.0.0.2:9530)";
        }
        return null;
    }

    /** A parser's message as {@link OneLine} (it may quote the body), "unreadable" when there is none. */
    private static String unreadable(String s) {
        return s == null ? "unreadable" : OneLine.of(s);
    }
}
