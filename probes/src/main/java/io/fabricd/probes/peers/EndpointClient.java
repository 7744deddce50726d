package io.fabricd.probes.peers;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.OneLine;
import io.fabricd.probes.ProbeKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * Asks another agent for its probe endpoint, authenticated with the shared key: one HTTP/1.1
 * request per connection over a plain socket (TLS where the peers serve it), which a thread
 * interrupt ends. Not the JDK's HttpClient: its ~280 classes, the TLS set-up it makes even for plain
 * HTTP (~500 more: ~8 MiB of a probing agent's memory) and a selector thread per client
 * (docs/benchmarks.md).
 */
public final class EndpointClient {
    public static final String PATH = "/api/v1/probe/endpoint";
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** Largest endpoint answer read (an endpoint is a few hundred bytes); a larger one is refused. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;

    private final SSLContext tls;
    private final EndpointAuth auth;
    private final Duration timeout;

    public EndpointClient(ProbeKey key, Duration timeout) {
        this(key, timeout, false);
    }

    /**
     * @param tls ask over HTTPS (peers whose web config turns TLS on). The peer's certificate is not
     *            checked: the answer is authenticated by the fabric's key (EndpointAuth), which a
     *            certificate could only add to, and agents hold no CA of their scrapers.
     */
    public EndpointClient(ProbeKey key, Duration timeout, boolean tls) {
        this.auth = new EndpointAuth(key);
        this.timeout = timeout;
        this.tls = tls ? AnyCertificate.context() : null;
    }

    /**
     * The agent id each peer (HOST:PORT) gave, which requests to it are signed for
     * ({@link EndpointAuth}); forgotten all at once beyond {@link #MAX_PEER_IDS} peers.
     */
    private final Map<String, String> ids = new ConcurrentHashMap<>();
    static final int MAX_PEER_IDS = 16_384;

    /**
     * The peer's endpoint, read within {@code timeout} in all (a peer trickling its answer cannot
     * hold the caller), at most {@link #MAX_ANSWER_BYTES}, and only when the peer proves it holds
     * the key ({@link EndpointAuth}). A peer whose agent id is not known yet (or changed) is asked
     * twice: its first answer, 401, says its id.
     *
     * @param peer HOST:PORT of the peer's HTTP listener ([v6]:port for IPv6)
     */
    public Endpoint fetch(String peer) throws IOException {
        return fetch(peer, timeout);
    }

    /**
     * The peer's endpoint as {@link #fetch(String)} reads it, within {@code within} in all instead of
     * this client's timeout (connecting is bounded by that one still). It must name the agent that
     * signed it: the name probe windows give the peer is the answering agent's own.
     */
    public Endpoint fetch(String peer, Duration within) throws IOException {
        Answered a = exchange(peer, PATH, null, "an endpoint", within);
        Endpoint ep;
        try {
            ep = JSON.readValue(a.body(), Endpoint.class);
        } catch (JacksonException e) {
            throw new IOException(peer + " sent an endpoint fabricd cannot read: " + e.getOriginalMessage());
        }
        if (ep.host() == null || !ep.host().equals(a.agent())) {
            throw new IOException(peer + " sent the endpoint of " + OneLine.of(String.valueOf(ep.host()), 60) + " signed by agent "
                    + OneLine.of(a.agent(), 60) + ": an endpoint names the agent that gives it");
        }
        return ep;
    }

    /**
     * POSTs {@code body} to {@code path} of the peer, the request signed over the body's SHA-256
     * too; the answer's body once the peer proved it holds the key.
     * Answers other than 200 become an IOException with the peer's text.
     */
    public byte[] post(String peer, String path, byte[] body) throws IOException {
        return ask(peer, path, body).body();
    }

    /**
     * {@link #post}, with the node name of the agent that answered (signed with the answer): the
     * agent at that address as it proved itself, which a caller that knows whom it meant to ask
     * checks (a relay at the peer's address gets another agent's answer, in that agent's name).
     */
    public Answered ask(String peer, String path, byte[] body) throws IOException {
        return exchange(peer, path, body, "an answer", timeout);
    }

    /** An authenticated answer: its body, and the node name of the agent that signed it. */
    public record Answered(String agent, byte[] body) {
    }

    private Answered exchange(String peer, String path, byte[] post, String what, Duration within) throws IOException {
        URI uri;
        try {
            uri = URI.create((tls == null ? "http" : "https") + "://" + peer + path);
        } catch (IllegalArgumentException e) {
            throw new IOException("peer '" + peer + "' is not HOST:PORT");
        }
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IOException("peer '" + peer + "' is not HOST:PORT");
        }
        long deadline = System.nanoTime() + within.toNanos();
        String known = ids.get(peer);
        Exchange x = send(uri, peer, path, post, known == null ? EndpointAuth.UNKNOWN_AGENT : known, deadline, within);
        if (x.answer().status() == 401) {
            // signed for another agent or none: the peer says who it is, once, and the request goes again; the id
            // is not authenticated, the answer is (which agent signed it: the caller judges whether it meant that one)
            String id = EndpointAuth.announcedId(x.answer().header(EndpointAuth.AGENT_ID_HEADER));
            if (id != null && !id.equals(known)) {
                if (ids.size() >= MAX_PEER_IDS) {
                    ids.clear();
                }
                ids.put(peer, id);
                x = send(uri, peer, path, post, id, deadline, within);
            }
        }
        Answer r = x.answer();
        String body = OneLine.of(new String(r.body(), StandardCharsets.UTF_8));
        long retryAfter = retryAfter(r.header("Retry-After"));
        if (r.status() == 401) {
            throw new Refused(peer + " refused the probe key (401): " + body + "; the agents' keys differ, their clocks by "
                    + "more than " + EndpointAuth.WINDOW_SECONDS + " s, or one is an older fabricd (agents exchange endpoints with "
                    + "agents of their own release only: upgrade them together)", 401, body, retryAfter);
        }
        if (r.status() != 200) {
            throw new Refused(peer + " answered " + r.status() + ": " + body, r.status(), body, retryAfter);
        }
        String agent = auth.answerer(x.nonce(), x.id(), r.body(), r.header(EndpointAuth.ANSWER_HEADER));
        if (agent == null) {
            throw new IOException(peer + " sent " + what + " not signed with the probe key by the agent it was asked of: not a "
                    + "fabricd agent of this fabric (or an older fabricd)");
        }
        return new Answered(agent, r.body());
    }

    /** One request and its answer, and the nonce and agent id the answer must be signed for. */
    private record Exchange(Answer answer, String nonce, String id) {
    }

    /** An HTTP answer: its status, its headers (names in lower case, the first of each) and its body. */
    private record Answer(int status, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** Sends the request signed for the agent of {@code id}; its answer, read by {@code deadline} (System.nanoTime, {@code within} from the start). */
    private Exchange send(URI uri, String peer, String path, byte[] post, String id, long deadline, Duration within) throws IOException {
        String method = post == null ? "GET" : "POST";
        EndpointAuth.Request signed = auth.request(method, path, id, post, System.currentTimeMillis() / 1000);
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
        byte[] head = (method + " " + path + " HTTP/1.1\r\nHost: " + uri.getRawAuthority() + "\r\n" + EndpointAuth.REQUEST_HEADER + ": "
                + signed.header() + "\r\nConnection: close\r\n" + (post == null ? "" : "Content-Type: application/json\r\n")
                + "Content-Length: " + (post == null ? 0 : post.length) + "\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        boolean connected = false;
        try (SocketChannel ch = SocketChannel.open(); Socket plain = ch.socket()) { // a channel's socket: an interrupt ends its calls
            plain.connect(new InetSocketAddress(host, uri.getPort()), (int) Math.max(1, Math.min(timeout.toMillis(), millisTo(deadline))));
            connected = true;
            Socket s = tls == null ? plain : tls.getSocketFactory().createSocket(plain, host, uri.getPort(), true);
            s.setSoTimeout((int) Math.max(1, millisTo(deadline)));
            s.getOutputStream().write(post == null ? head : concat(head, post));
            return new Exchange(read(s, deadline), signed.nonce(), id);
        } catch (SocketTimeoutException e) {
            throw new IOException("cannot reach " + peer + ": " + (connected ? "no complete answer within " + within.toMillis() + " ms"
                    : "no connection within the timeout (host down or filtered?)"));
        } catch (ClosedByInterruptException e) {
            throw new IOException("interrupted");
        } catch (IOException | UnresolvedAddressException e) {
            throw new IOException("cannot reach " + peer + ": " + why(e, host));
        }
    }

    private static long millisTo(long deadline) {
        return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /**
     * The whole answer (the peer closes after it), read by the deadline however slowly it comes,
     * and at most {@link #MAX_ANSWER_BYTES} of body (a rogue peer's endless answer).
     */
    private static Answer read(Socket s, long deadline) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] chunk = new byte[8192];
        for (int n; (n = in.read(chunk)) >= 0;) {
            if (got.size() + n > MAX_ANSWER_BYTES + chunk.length) {
                throw new IOException("answer larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            got.write(chunk, 0, n);
            long left = millisTo(deadline);
            if (left <= 0) {
                throw new SocketTimeoutException();
            }
            s.setSoTimeout((int) left);
        }
        byte[] all = got.toByteArray();
        String text = new String(all, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String[] lines = (end < 0 ? text : text.substring(0, end)).split("\r\n");
        if (end < 0 || !lines[0].matches("HTTP/1\\.[01] \\d{3}( .*)?")) {
            throw new IOException("not an HTTP answer: " + OneLine.of(lines[0], 60));
        }
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            if (c > 0) {
                headers.putIfAbsent(lines[i].substring(0, c).strip().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).strip());
            }
        }
        if (headers.containsKey("transfer-encoding")) { // an agent's answers have a length; a proxy's re-framing is refused
            throw new IOException("answered in chunks, as no fabricd agent answers (a proxy in between?)");
        }
        return new Answer(Integer.parseInt(lines[0].substring(9, 12)), headers, Arrays.copyOfRange(all, end + 4, all.length));
    }

    /**
     * A peer's answer other than 200: its status, its one line of text and its {@code Retry-After}
     * in seconds (0 when it sent none); the message says all of it, as before.
     */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final String text;
        private final long retryAfterSeconds;

        public Refused(String message, int status, String text, long retryAfterSeconds) {
            super(message);
            this.status = status;
            this.text = text;
            this.retryAfterSeconds = retryAfterSeconds;
        }

        public int status() {
            return status;
        }

        /** The peer's text: one line, at most 200 characters. */
        public String text() {
            return text;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }

    /** Retry-After as seconds (its delay form; a date or garbage as 0), at most a day. */
    private static long retryAfter(String v) {
        if (v == null || !v.strip().matches("\\d{1,9}")) {
            return 0;
        }
        return Math.min(86_400, Long.parseLong(v.strip()));
    }

    /** The host part of HOST:PORT ([v6]:port). */
    public static String host(String peer) {
        if (peer.startsWith("[")) {
            int e = peer.indexOf(']');
            return e < 0 ? peer : peer.substring(1, e);
        }
        int c = peer.lastIndexOf(':');
        return c < 0 ? peer : peer.substring(0, c);
    }

    /** What went wrong in words, not an exception's class name. */
    static String why(Throwable c, String host) {
        if (c instanceof UnresolvedAddressException || c instanceof UnknownHostException) {
            return "cannot resolve host " + host;
        }
        if (c instanceof ConnectException) {
            return "connection refused (no agent listening there?)";
        }
        if (c instanceof SSLException) {
            return "TLS failed (" + c.getMessage() + "); does the peer serve TLS, and does --tls match?";
        }
        if (c.getMessage() != null && !c.getMessage().isBlank()) {
            return c.getMessage();
        }
        return c.getCause() != null ? why(c.getCause(), host) : "connection failed";
    }
}
