package io.fabricd.agent.config;

/** HOST:PORT for the HTTP server ("0.0.0.0:9530", "[::1]:9530", ":9530"). */
public record ListenAddress(String host, int port) {

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

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
