package io.fabricd.agent;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP/1.1 connection from a chosen loopback source address (any of 127.0.0.0/8 on Linux), as
 * an attacker's many addresses: requests written as bytes, answers read one at a time.
 */
final class RawHttp implements Closeable {
    /** One answer: status, headers (lower-case names), body. */
    record Reply(int status, Map<String, String> headers, String body) {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttp(String from, int port) throws IOException {
        socket = new Socket();
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(20_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** The value of an Authorization header for a user and password. */
    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** Writes a GET of {@code path} with {@code authorization} (none when null). */
    void get(String path, String authorization) throws IOException {
        write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n");
    }

    void write(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Reads one answer (Content-Length bodies only, as the agent's small ones are). */
    Reply read() throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("connection closed before an answer");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            int c = h.indexOf(':');
            headers.put(h.substring(0, c).strip().toLowerCase(Locale.ROOT), h.substring(c + 1).strip());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new Reply(Integer.parseInt(status.split(" ")[1]), headers, new String(body, StandardCharsets.UTF_8));
    }

    /** Whether the server closed the connection: end of stream (anything it still sends is skipped) within the read timeout. */
    boolean closedByServer() throws IOException {
        try {
            while (in.read() >= 0) {
                continue;
            }
            return true;
        } catch (SocketException e) {
            return true; // reset: closed too
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c >= 0; c = in.read()) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
