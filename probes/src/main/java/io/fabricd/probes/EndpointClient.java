package io.fabricd.probes;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Asks another agent for its probe endpoint, authenticated with the shared key. */
public final class EndpointClient {
    public static final String PATH = "/api/v1/probe/endpoint";
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final HttpClient http;
    private final ProbeKey key;
    private final Duration timeout;

    public EndpointClient(ProbeKey key, Duration timeout) {
        this.key = key;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** @param peer HOST:PORT of the peer's HTTP listener ([v6]:port for IPv6) */
    public Endpoint fetch(String peer) throws IOException {
        URI uri;
        try {
            uri = URI.create("http://" + peer + PATH);
        } catch (IllegalArgumentException e) {
            throw new IOException("peer '" + peer + "' is not HOST:PORT");
        }
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout)
                .header(ProbeKey.AUTH_HEADER, key.authHeader(PATH, System.currentTimeMillis() / 1000)).GET().build();
        HttpResponse<String> r;
        try {
            r = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (IOException e) {
            throw new IOException("cannot reach " + peer + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        if (r.statusCode() == 401) {
            throw new IOException(peer + " refused the probe key (401): the agents' keys differ");
        }
        if (r.statusCode() != 200) {
            throw new IOException(peer + " answered " + r.statusCode() + ": " + r.body().strip());
        }
        try {
            return JSON.readValue(r.body(), Endpoint.class);
        } catch (IOException e) {
            throw new IOException(peer + " sent an endpoint fabricd cannot read: " + e.getMessage());
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
}
