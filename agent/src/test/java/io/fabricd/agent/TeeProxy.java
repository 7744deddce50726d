package io.fabricd.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback in front of an agent that keeps a copy of everything clients send
 * through it: a man in the middle capturing requests as they went to the agent (Host header and
 * all), for replay elsewhere; or, holding no key, answering at another node's address with the
 * agent's answers.
 */
final class TeeProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final ByteArrayOutputStream seen = new ByteArrayOutputStream();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    TeeProxy(int targetPort) throws IOException {
        this(InetAddress.getLoopbackAddress(), 0, targetPort);
    }

    /** Listening on {@code bind}:{@code port} (0: any; a loopback address such as 127.0.0.2), relaying to the agent on loopback. */
    TeeProxy(InetAddress bind, int port, int targetPort) throws IOException {
        this.target = targetPort;
        this.server = new ServerSocket(port, 50, bind);
        daemon(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket up = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(client);
                sockets.add(up);
                daemon(() -> pump(client, up, true));
                daemon(() -> pump(up, client, false));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, boolean tee) {
        byte[] b = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(b)) > 0) {
                if (tee) {
                    synchronized (seen) {
                        seen.write(b, 0, n);
                    }
                }
                out.write(b, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away
        } finally {
            close(from);
            close(to);
        }
    }

    /** The values of the request header {@code name} relayed so far, oldest first. */
    List<String> headers(String name) {
        String text;
        synchronized (seen) {
            text = seen.toString(StandardCharsets.ISO_8859_1);
        }
        List<String> out = new ArrayList<>();
        String prefix = name.toLowerCase(Locale.ROOT) + ":";
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith(prefix)) {
                out.add(line.substring(prefix.length()).strip());
            }
        }
        return out;
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "tee-proxy");
        t.setDaemon(true);
        t.start();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(TeeProxy::close);
    }
}
