package io.fabricd.agent.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The web configuration file of the Prometheus exporters (exporter-toolkit's format, the file
 * node_exporter takes with {@code --web.config.file}): TLS with optional client certificates and
 * basic authentication with bcrypt hashes. What fabricd does not implement is refused, never
 * ignored: a security setting that silently does nothing is worse than an error.
 *
 * <pre>
 * tls_server_config:
 *   cert_file: /etc/fabricd/tls.crt
 *   key_file: /etc/fabricd/tls.key
 *   client_auth_type: RequireAndVerifyClientCert   # or VerifyClientCertIfGiven, NoClientCert
 *   client_ca_file: /etc/fabricd/ca.crt
 *   min_version: TLS12
 * basic_auth_users:
 *   prometheus: $2y$10$...                          # htpasswd -nBC 10 prometheus
 * </pre>
 *
 * @param dir where the file's relative paths are resolved from (its folder), as exporter-toolkit
 *            does; not a key of the file
 */
public record WebConfig(@JsonProperty("tls_server_config") Tls tlsServer, @JsonProperty("http_server_config") HttpServer httpServer,
                        // named here too: Jackson would otherwise take the map's accessor for a key of its own
                        @JsonProperty("basic_auth_users") Map<String, String> basicAuthUsers, Path dir) {

    public WebConfig {
        // a copy that keeps the file's order and a user without a hash (refused by validate, in words)
        basicAuthUsers = basicAuthUsers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(basicAuthUsers));
    }

    /** The file's keys; {@link #load} adds its folder. */
    @JsonCreator
    static WebConfig bind(@JsonProperty("tls_server_config") Tls tls, @JsonProperty("http_server_config") HttpServer http,
                          @JsonProperty("basic_auth_users") Map<String, String> users) {
        return new WebConfig(tls, http, users, null);
    }

    public record Tls(@JsonProperty("cert_file") String certFile, @JsonProperty("key_file") String keyFile,
                      @JsonProperty("client_auth_type") String clientAuthType, @JsonProperty("client_ca_file") String clientCaFile,
                      @JsonProperty("min_version") String minVersion, @JsonProperty("max_version") String maxVersion,
                      @JsonProperty("cipher_suites") List<String> cipherSuites,
                      @JsonProperty("curve_preferences") List<String> curvePreferences,
                      @JsonProperty("prefer_server_cipher_suites") Boolean preferServerCipherSuites,
                      @JsonProperty("client_allowed_sans") List<String> clientAllowedSans) {
        public Tls {
            clientAuthType = clientAuthType == null ? "NoClientCert" : clientAuthType;
            minVersion = minVersion == null ? "TLS12" : minVersion;
            maxVersion = maxVersion == null ? "TLS13" : maxVersion;
        }
    }

    /**
     * @param http2   HTTP/2: fabricd speaks HTTP/1.1 only; true is refused
     * @param headers response headers added to every answer (Strict-Transport-Security, ...)
     */
    public record HttpServer(@JsonProperty("http2") Boolean http2, @JsonProperty("headers") Map<String, String> headers) {
        public HttpServer {
            headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        }
    }

    /** How the server treats client certificates. */
    public enum ClientAuth { NONE, IF_GIVEN, REQUIRED }

    /** Reads and checks the file; IllegalArgumentException with one line for every problem. */
    public static WebConfig load(Path file) {
        ConfigLoader.checkReadableFile("web config file", file);
        ObjectMapper m = new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        WebConfig c;
        try {
            c = Files.size(file) == 0 ? null : m.readValue(file.toFile(), WebConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException("web config file " + file + ": unknown key '" + e.getPropertyName() + "'; known keys: "
                    + e.getKnownPropertyIds());
        } catch (JacksonException e) {
            throw new IllegalArgumentException("web config file " + file + ": " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")"));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read web config file " + file + ": " + e.getMessage());
        }
        c = c == null ? new WebConfig(null, null, null, file.toAbsolutePath().getParent())
                : new WebConfig(c.tlsServer, c.httpServer, c.basicAuthUsers, file.toAbsolutePath().getParent());
        try {
            c.validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("web config file " + file + ": " + e.getMessage());
        }
        return c;
    }

    private void validate() {
        Tls tls = tlsServer;
        basicAuthUsers.forEach((user, hash) -> {
            if (user.contains(":")) {
                throw new IllegalArgumentException("basic_auth_users: a user name cannot contain ':' (" + user + ")");
            }
            if (hash == null || !hash.matches("\\$2[abxy]?\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
                throw new IllegalArgumentException("basic_auth_users." + user + " is not a bcrypt hash (make one with htpasswd -nBC 10 "
                        + user + ")");
            }
        });
        if (httpServer != null && Boolean.TRUE.equals(httpServer.http2)) {
            throw new IllegalArgumentException("http_server_config.http2: fabricd serves HTTP/1.1 only; leave it out or set false");
        }
        if (tls == null) {
            return;
        }
        if (tls.certFile == null || tls.keyFile == null) {
            throw new IllegalArgumentException("tls_server_config needs cert_file and key_file (inline cert and key are not supported)");
        }
        refuse("cipher_suites", tls.cipherSuites);
        refuse("curve_preferences", tls.curvePreferences);
        refuse("client_allowed_sans", tls.clientAllowedSans);
        if (tls.preferServerCipherSuites != null) {
            throw new IllegalArgumentException("tls_server_config.prefer_server_cipher_suites is not supported by fabricd (the JDK's TLS defaults apply)");
        }
        ConfigLoader.checkReadableFile("tls_server_config.cert_file", path(tls.certFile));
        ConfigLoader.checkReadableFile("tls_server_config.key_file", path(tls.keyFile));
        ClientAuth a = clientAuth();
        if (a != ClientAuth.NONE) {
            if (tls.clientCaFile == null) {
                throw new IllegalArgumentException("tls_server_config.client_auth_type " + tls.clientAuthType + " needs client_ca_file");
            }
            ConfigLoader.checkReadableFile("tls_server_config.client_ca_file", path(tls.clientCaFile));
        }
        List<String> p = protocols();
        if (p.isEmpty()) {
            throw new IllegalArgumentException("tls_server_config: min_version " + tls.minVersion + " is above max_version " + tls.maxVersion);
        }
    }

    private static void refuse(String key, List<String> value) {
        if (value != null && !value.isEmpty()) {
            throw new IllegalArgumentException("tls_server_config." + key + " is not supported by fabricd (the JDK's TLS defaults apply); "
                    + "leave it out");
        }
    }

    /** TLS on. */
    public boolean tls() {
        return tlsServer != null;
    }

    /** A path of the file, relative to the file's folder unless absolute. */
    public Path path(String p) {
        Path x = Path.of(p);
        return x.isAbsolute() || dir == null ? x : dir.resolve(x);
    }

    public ClientAuth clientAuth() {
        String type = tlsServer == null ? "NoClientCert" : tlsServer.clientAuthType;
        return switch (type) {
            case "NoClientCert" -> ClientAuth.NONE;
            case "VerifyClientCertIfGiven" -> ClientAuth.IF_GIVEN;
            case "RequireAndVerifyClientCert" -> ClientAuth.REQUIRED;
            case "RequestClientCert", "RequireAnyClientCert" -> throw new IllegalArgumentException("tls_server_config.client_auth_type "
                    + type + " (a client certificate nobody verifies) is not supported: use VerifyClientCertIfGiven or "
                    + "RequireAndVerifyClientCert with client_ca_file");
            default -> throw new IllegalArgumentException("tls_server_config.client_auth_type '" + type + "' is none of "
                    + "NoClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert");
        };
    }

    /** The JDK's protocol names from min_version to max_version. */
    public List<String> protocols() {
        List<String> all = List.of("TLS10", "TLS11", "TLS12", "TLS13");
        int lo = all.indexOf(tlsServer.minVersion);
        int hi = all.indexOf(tlsServer.maxVersion);
        if (lo < 0 || hi < 0) {
            throw new IllegalArgumentException("tls_server_config: min_version and max_version are TLS10, TLS11, TLS12 or TLS13");
        }
        return all.subList(lo, hi + 1).stream().map(v -> "TLSv1." + (v.charAt(4) - '0')).map(v -> v.equals("TLSv1.0") ? "TLSv1" : v).toList();
    }

    public Map<String, String> headers() {
        return httpServer == null ? Map.of() : httpServer.headers;
    }
}
