package io.fabricd.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * Whether a PEM private key is the key of a PEM certificate, read the way the server reads them
 * (Vert.x's PEM loader). The JDK loads a key of another certificate of the same algorithm without
 * a word and every handshake then fails: clients see a server whose signature does not verify,
 * the agent sees nothing. So the pair is proved by signing with the key and verifying with the
 * certificate's public key, at start and before a reloaded pair is served.
 */
public final class TlsKeyPair {
    /** A certificate chain or a key is a few KiB; a file over this is neither. */
    static final long MAX_FILE = 1 << 20;
    private static final byte[] CHALLENGE = "fabricd: is this key the certificate's?".getBytes(StandardCharsets.US_ASCII);

    private TlsKeyPair() {
    }

    /** {@link #problem(byte[], byte[], String, String)} of the two files as they are now. */
    public static String problem(Path cert, Path key) {
        try {
            return problem(read(cert), read(key), cert.toString(), key.toString());
        } catch (NoSuchFileException e) {
            return e.getFile() + " does not exist (cert_file " + cert + ", key_file " + key + ")";
        } catch (AccessDeniedException e) {
            return e.getFile() + ": permission denied (cert_file " + cert + ", key_file " + key + ")";
        } catch (IOException e) {
            return "cert_file " + cert + " or key_file " + key + " cannot be read (" + oneLine(e) + ")";
        }
    }

    /** A PEM file whole; one over {@link #MAX_FILE} is no certificate or key. */
    static byte[] read(Path f) throws IOException {
        if (Files.size(f) > MAX_FILE) {
            throw new IOException(f + " is larger than 1 MiB, more than a certificate or key can be");
        }
        return Files.readAllBytes(f);
    }

    /**
     * Null when {@code keyPem} is the private key of the first certificate of {@code certPem}; else
     * why not, in words, naming the files as {@code certName} and {@code keyName}.
     */
    public static String problem(byte[] certPem, byte[] keyPem, String certName, String keyName) {
        X509KeyManager km;
        try {
            km = keyManager(new PemKeyCertOptions().setCertValue(Buffer.buffer(certPem)).setKeyValue(Buffer.buffer(keyPem)));
        } catch (Exception e) { // Vert.x's loader throws Exception: any of them means the pair does not load
            return "cert_file " + certName + " and key_file " + keyName + " do not load as a PEM certificate and its key ("
                    + oneLine(e) + ")";
        }
        String alias = null;
        for (String type : new String[] {"RSA", "EC", "EdDSA", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"}) {
            String[] aliases = km.getServerAliases(type, null);
            if (aliases != null && aliases.length > 0) {
                alias = aliases[0];
                break;
            }
        }
        X509Certificate[] chain = alias == null ? null : km.getCertificateChain(alias);
        PrivateKey key = alias == null ? null : km.getPrivateKey(alias);
        if (chain == null || chain.length == 0 || key == null) {
            return "cert_file " + certName + " and key_file " + keyName + " hold no certificate and key of a kind TLS can serve";
        }
        if (!signs(key, chain[0])) {
            return "key_file " + keyName + " is not the private key of the certificate in cert_file " + certName
                    + " (a key of another certificate, or a certificate renewed with a new key): give the key the certificate was issued for";
        }
        return null;
    }

    private static X509KeyManager keyManager(PemKeyCertOptions pem) throws Exception {
        // Vert.x needs no Vert.x instance for PEM values (only for paths)
        for (KeyManager m : pem.getKeyManagerFactory(null).getKeyManagers()) {
            if (m instanceof X509KeyManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 key manager");
    }

    /** The key signs what the certificate's public key verifies. */
    private static boolean signs(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "DSA" -> "SHA256withDSA";
            default -> key.getAlgorithm(); // EdDSA, Ed25519, Ed448: the key's own name is its signature's
        };
        byte[] signature;
        try {
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(CHALLENGE);
            signature = s.sign();
        } catch (GeneralSecurityException e) {
            return true; // a key the JDK cannot sign with alone (RSASSA-PSS wants parameters): the handshake judges it
        }
        try {
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(cert.getPublicKey());
            v.update(CHALLENGE);
            return v.verify(signature);
        } catch (GeneralSecurityException e) {
            return false; // the certificate's key is of another kind or size than the private key
        }
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String line = m.replaceAll("\\s+", " ").strip();
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
