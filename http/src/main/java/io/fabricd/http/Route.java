package io.fabricd.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;

/**
 * One path the server serves ({@link Routes}): its methods (another gets 405 with {@code Allow}),
 * who may ask ({@link Access}), whether it counts against the request budget
 * ({@link ConnectionLimits#limit}), and what answers it. A route that takes a body (POST) matches
 * its path exactly; one that does not also matches it with a trailing slash.
 *
 * @param what the requests in the refusals' words ("bandwidth requests"); used by signed routes
 */
public record Route(List<HttpMethod> methods, String path, Access access, boolean budgeted, String what, Serve serve) {
    /** Who may ask. */
    public enum Access {
        /** Anyone: no password asked (the kubelet's health checks, and answers that say a feature is off). */
        OPEN,
        /** The web config's users, when it has some (basic auth). */
        AUTHENTICATED,
        /** Requests signed for this server ({@link Signatures}), checked before the body is read; no password asked. */
        SIGNED
    }

    /** What answers a request; {@code body} is the signed body of a signed POST, else null. */
    public interface Serve {
        void handle(HttpServerRequest req, byte[] body);
    }

    /** GET (and HEAD, answered as GET: Vert.x leaves the body out), counted against the request budget. */
    public static Route get(String path, Access access, Serve serve) {
        return new Route(List.of(HttpMethod.GET, HttpMethod.HEAD), path, access, true, path, serve);
    }

    /** A signed POST whose body is read ({@link SignedPost}) and handed to {@code serve}. */
    public static Route signedPost(String path, String what, Serve serve) {
        return new Route(List.of(HttpMethod.POST), path, Access.SIGNED, true, what, serve);
    }

    /** This route outside the request budget: answered at once on the event loop, it holds nothing. */
    public Route outsideBudget() {
        return new Route(methods, path, access, false, what, serve);
    }

    /** This route off: open to anyone, answering 503 with {@code why} (one line), as a feature that is off does. */
    public Route off(String why) {
        return new Route(methods, path, Access.OPEN, budgeted, what, (req, b) -> LingeringClose.text(req, 503, why + "\n"));
    }

    boolean matches(String p) {
        return p.equals(path) || !methods.contains(HttpMethod.POST) && p.length() == path.length() + 1 && p.startsWith(path)
                && p.endsWith("/");
    }
}
