package io.fabricd.agent.config;

import java.nio.channels.UnsupportedAddressTypeException;

/** HOST:PORT for the HTTP server ("0.0.0.0:9530", "[::1]:9530", ":9530"). */
public record ListenAddress(String host, int port) {
    /** The JVM property that leaves a JVM with IPv4 sockets alone. */
    private static final String IPV4_ONLY = "java.net.preferIPv4Stack";

    public static ListenAddress parse(String text) {
        String t = text == null ? "" : text.strip();
        int colon = t.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("listen address " + ConfigText.quote(text) + " is not HOST:PORT");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            host = "0.0.0.0";
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("listen address " + ConfigText.quote(text) + " has no valid port");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("listen port " + port + " is out of range");
        }
        return new ListenAddress(host, port);
    }

    /**
     * Why this JVM cannot listen here, said before trying; null when it may: an IPv6 address in a
     * JVM started with {@code -Djava.net.preferIPv4Stack=true}, whose sockets are all IPv4.
     */
    public String unusable() {
        if (ipv6() && Boolean.getBoolean(IPV4_ONLY)) {
            return "an IPv6 address, but this JVM runs with -D" + IPV4_ONLY + "=true, which allows IPv4 sockets alone: remove "
                    + "that flag (FABRICD_EXTRA_JAVA_OPTS, the chart's javaOpts or extraJavaOpts), or listen on an IPv4 address";
        }
        return null;
    }

    /** Why binding this address failed, in words: never an empty message. */
    public String bindFailure(Throwable e) {
        if (ipv6() && e instanceof UnsupportedAddressTypeException) {
            // the JDK found no IPv6 on this host (the kernel's IPv6 off): its sockets are IPv4 alone
            return "an IPv6 address, but this host has no IPv6 (the kernel's IPv6 is off): enable it, or listen on an IPv4 address";
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c.getMessage() != null && !c.getMessage().isBlank()) {
                return c.getMessage();
            }
        }
        return e.getClass().getSimpleName();
    }

    private boolean ipv6() {
        return host.contains(":");
    }

    @Override
    public String toString() {
        return (ipv6() ? "[" + host + "]" : host) + ":" + port;
    }
}
