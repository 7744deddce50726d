package io.fabricd.probes.peers;

import javax.net.ssl.SSLContext;

/**
 * The endpoint exchange's accept-any-certificate TLS context ({@link AnyCertificate}, package-private
 * in the main code so that nothing there trusts any certificate by mistake), for tests of other
 * modules that read the certificate a server presents, whoever signed it.
 */
public final class AnyCertificateContext {
    private AnyCertificateContext() {
    }

    public static SSLContext get() {
        return AnyCertificate.context();
    }
}
