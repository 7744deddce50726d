package io.fabricd.http;

import io.vertx.core.http.HttpServerRequest;

/**
 * How the requests of {@link Route.Access#SIGNED} routes are verified and their answers signed:
 * the server asks before it reads a body, and again with the body. A request that does not pass is
 * answered by the implementation (a 401 saying why, through {@link LingeringClose}) and counted
 * there.
 */
public interface Signatures {
    /** Whether the request's signature header passes for its method and path; when not, the refusal is answered. */
    boolean admit(HttpServerRequest req, String what);

    /** Whether {@code body} (null: none) is the one the header signs; when not, the refusal is answered. */
    boolean body(HttpServerRequest req, byte[] body, String what);

    /** Puts the signature of the answer {@code body} to {@code req} on its response. */
    void sign(HttpServerRequest req, byte[] body);
}
