package io.fabricd.probes.peers;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A TLS client context that accepts any server certificate and name: for the endpoint exchange
 * only, whose answers are authenticated by the fabric's key (EndpointAuth), so TLS there gives
 * privacy from passive listeners, not the peer's identity.
 */
final class AnyCertificate extends X509ExtendedTrustManager {
    private AnyCertificate() {
    }

    static SSLContext context() {
        try {
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, new TrustManager[] {new AnyCertificate()}, null);
            return c;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no TLS in this JDK", e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
