package io.fabricd.probes.peers;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.OneLine;
import io.fabricd.probes.ProbeKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/** Asks another agent for its probe endpoint, authenticated with the shared key. */
public final class EndpointClient {
    public static final String PATH = "/api/v1/probe/endpoint";
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** Largest endpoint answer read (an endpoint is a few hundred bytes); a larger one is refused. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;

    private final HttpClient http;
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
        this.scheme = tls ? "https" : "http";
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(timeout);
        if (tls) {
            b.sslContext(AnyCertificate.context());
        }
        this.http = b.build();
    }

    private final String scheme;
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
            uri = URI.create(scheme + "://" + peer + path);
        } catch (IllegalArgumentException e) {
            throw new IOException("peer '" + peer + "' is not HOST:PORT");
        }
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IOException("peer '" + peer + "' is not HOST:PORT");
        }
        long deadline = System.nanoTime() + within.toNanos();
        String known = ids.get(peer);
        Exchange x = send(uri, peer, path, post, known == null ? EndpointAuth.UNKNOWN_AGENT : known, deadline, within);
        if (x.answer().statusCode() == 401) {
            // signed for another agent or none: the peer says who it is, once, and the request goes again; the id
            // is not authenticated, the answer is (which agent signed it: the caller judges whether it meant that one)
            String id = EndpointAuth.announcedId(x.answer().headers().firstValue(EndpointAuth.AGENT_ID_HEADER).orElse(null));
            if (id != null && !id.equals(known)) {
                if (ids.size() >= MAX_PEER_IDS) {
                    ids.clear();
                }
                ids.put(peer, id);
                x = send(uri, peer, path, post, id, deadline, within);
            }
        }
        HttpResponse<byte[]> r = x.answer();
        String body = OneLine.of(new String(r.body(), StandardCharsets.UTF_8));
        long retryAfter = retryAfter(r.headers().firstValue("Retry-After").orElse(null));
        if (r.statusCode() == 401) {
            throw new Refused(peer + " refused the probe key (401): " + body + "; the agents' keys differ, their clocks by "
                    + "more than " + EndpointAuth.WINDOW_SECONDS + " s, or one is an older fabricd (agents exchange endpoints with "
                    + "agents of their own release only: upgrade them together)", 401, body, retryAfter);
        }
        if (r.statusCode() != 200) {
            throw new Refused(peer + " answered " + r.statusCode() + ": " + body, r.statusCode(), body, retryAfter);
        }
        String agent = auth.answerer(x.nonce(), x.id(), r.body(), r.headers().firstValue(EndpointAuth.ANSWER_HEADER).orElse(null));
        if (agent == null) {
            throw new IOException(peer + " sent " + what + " not signed with the probe key by the agent it was asked of: not a "
                    + "fabricd agent of this fabric (or an older fabricd)");
        }
        return new Answered(agent, r.body());
    }

    /** One request and its answer, and the nonce and agent id the answer must be signed for. */
    private record Exchange(HttpResponse<byte[]> answer, String nonce, String id) {
    }

    /** Sends the request signed for the agent of {@code id}; its answer, read by {@code deadline} (System.nanoTime, {@code within} from the start). */
    private Exchange send(URI uri, String peer, String path, byte[] post, String id, long deadline, Duration within) throws IOException {
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        String method = post == null ? "GET" : "POST";
        EndpointAuth.Request signed = auth.request(method, path, id, post, System.currentTimeMillis() / 1000);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(left)).header(EndpointAuth.REQUEST_HEADER, signed.header());
        HttpRequest req = post == null ? b.GET().build()
                : b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(post)).build();
        CompletableFuture<HttpResponse<byte[]>> call = http.sendAsync(req, info -> new Bounded(MAX_ANSWER_BYTES));
        try {
            return new Exchange(call.get(left, TimeUnit.MILLISECONDS), signed.nonce(), id);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IOException("cannot reach " + peer + ": no complete answer within " + within.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new IOException("cannot reach " + peer + ": " + why(c, uri.getHost()));
        }
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

    /** A body subscriber that gives up beyond {@code max} bytes (a rogue peer's endless answer). */
    private static final class Bounded implements HttpResponse.BodySubscriber<byte[]> {
        private final int max;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        Bounded(int max) {
            this.max = max;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                if (out.size() + b.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new IOException("answer larger than " + max + " bytes"));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                out.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(out.toByteArray());
        }
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

    /**
     * What went wrong in words, not an exception's class name. A name that does not resolve is said
     * as such: the HTTP client reports it as a ConnectException caused by an UnresolvedAddressException.
     */
    static String why(Throwable c, String host) {
        for (Throwable t = c; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return "cannot resolve host " + host;
            }
        }
        if (c instanceof ConnectException) {
            return "connection refused (no agent listening there?)";
        }
        if (c instanceof HttpConnectTimeoutException) {
            return "no connection within the timeout (host down or filtered?)";
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
