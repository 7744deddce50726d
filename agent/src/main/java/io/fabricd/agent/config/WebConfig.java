package io.fabricd.agent.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
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
 *   min_version: TLS12                              # TLS12 (default) or TLS13; TLS10 and TLS11 are refused
 * http_server_config:
 *   headers:                                        # added to every answer; checked by ResponseHeaders
 *     Strict-Transport-Security: max-age=31536000
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

    /**
     * The highest bcrypt cost taken in basic_auth_users: a verification at it takes ~0.3 s of a
     * core, so the 16 logins BasicAuth lets wait take ~5 s, within a scrape's timeout.
     */
    public static final int MAX_BCRYPT_COST = 12;

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

    /**
     * Reads and checks the file; IllegalArgumentException with one line for the first problem,
     * naming the file and the line of its key. The file is bounded like the main config
     * ({@link ConfigText}) before it is parsed.
     */
    public static WebConfig load(Path file) {
        String text = ConfigText.read("web config file", file);
        YAMLFactory yaml = new YAMLFactory();
        ObjectMapper m = new ObjectMapper(yaml).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        ConfigProblems problems = new ConfigProblems();
        YamlLines lines = YamlLines.scan(yaml, text, problems);
        if (lines == null || !problems.isEmpty()) {
            throw problems.exception("web config file", file);
        }
        WebConfig c;
        try {
            JsonNode tree = m.readTree(text);
            // an empty file, or comments only: plain HTTP for everyone
            c = tree == null || tree.isMissingNode() || tree.isNull() ? null : m.treeToValue(tree, WebConfig.class);
        } catch (JsonMappingException e) {
            // an unknown key, a value of the wrong kind: in words, with its line
            int line = lines.line(e);
            problems.add(line, ConfigBinder.describe(e, line));
            throw problems.exception("web config file", file);
        } catch (JacksonException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            problems.add(line, ConfigBinder.words(e.getOriginalMessage()) + ConfigProblems.at(line));
            throw problems.exception("web config file", file);
        }
        c = c == null ? new WebConfig(null, null, null, file.toAbsolutePath().getParent())
                : new WebConfig(c.tlsServer, c.httpServer, c.basicAuthUsers, file.toAbsolutePath().getParent());
        ConfigProblems.At at = ResponseHeaders.check("/http_server_config/headers", c.headers());
        at = at != null ? at : usersProblem(c.basicAuthUsers);
        if (at != null) {
            problems.add(at, lines);
            throw problems.exception("web config file", file);
        }
        problems.check(c::validate, lines);
        if (!problems.isEmpty()) {
            throw problems.exception("web config file", file);
        }
        return c;
    }

    /** The first user of basic_auth_users that cannot log in: a name with ':', a password that is no bcrypt hash. */
    private static ConfigProblems.At usersProblem(Map<String, String> users) {
        for (Map.Entry<String, String> u : users.entrySet()) {
            String user = u.getKey();
            String hash = u.getValue();
            String at = YamlLines.child("/basic_auth_users", user);
            if (user.contains(":")) {
                return new ConfigProblems.At(at, "basic_auth_users: a user name cannot contain ':' (" + ConfigText.quote(user) + ")");
            }
            if (hash == null || !hash.matches("\\$2[abxy]?\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
                return new ConfigProblems.At(at, "basic_auth_users." + ConfigText.shorten(user) + " is not a bcrypt hash (make one with "
                        + "htpasswd -nBC 10 " + ConfigText.shorten(user) + ")");
            }
            String cost = costProblem(user, hash);
            if (cost != null) {
                return new ConfigProblems.At(at, cost);
            }
        }
        return null;
    }

    /**
     * A bcrypt cost outside 4..31 is no bcrypt hash (no login could ever pass); one above
     * {@link #MAX_BCRYPT_COST} makes every login the agent has not yet remembered cost it that much
     * CPU on its one verification thread (each step doubles it), so a handful of requests with the
     * user's name hold every other login back.
     */
    private static String costProblem(String user, String hash) {
        int at = hash.indexOf('$', 1) + 1;
        int cost = Integer.parseInt(hash.substring(at, at + 2));
        String name = ConfigText.shorten(user);
        if (cost < 4 || cost > 31) {
            return "basic_auth_users." + name + ": bcrypt cost " + hash.substring(at, at + 2) + " is not one (bcrypt's costs are 4 to 31), "
                    + "so no password could log in; make a new hash with htpasswd -nBC 10 " + name;
        }
        if (cost > MAX_BCRYPT_COST) {
            return "basic_auth_users." + name + ": bcrypt cost " + cost + " is above " + MAX_BCRYPT_COST + ", the most fabricd takes: "
                    + "each step doubles the CPU of every login the agent has not yet seen (cost 10: ~0.1 s, 12: ~0.3 s, 14: ~1.2 s), "
                    + "all on one thread, so a few requests with wrong passwords would hold back every login not yet remembered (a scraper's "
                    + "first after a restart); make a new hash with htpasswd -nBC 10 "
                    + name;
        }
        return null;
    }

    private void validate() {
        Tls tls = tlsServer;
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
        refuseBefore12("min_version", tls.minVersion);
        refuseBefore12("max_version", tls.maxVersion);
        ConfigLoader.checkReadableFile("tls_server_config.cert_file", path(tls.certFile));
        ConfigLoader.checkReadableFile("tls_server_config.key_file", path(tls.keyFile));
        ClientAuth a = clientAuth();
        if (a != ClientAuth.NONE) {
            if (tls.clientCaFile == null) {
                throw new IllegalArgumentException("tls_server_config.client_auth_type " + ConfigText.shorten(tls.clientAuthType) + " needs client_ca_file");
            }
            ConfigLoader.checkReadableFile("tls_server_config.client_ca_file", path(tls.clientCaFile));
        }
        List<String> p = protocols();
        if (p.isEmpty()) {
            throw new IllegalArgumentException("tls_server_config: min_version " + ConfigText.shorten(tls.minVersion) + " is above max_version "
                    + ConfigText.shorten(tls.maxVersion));
        }
    }

    private static void refuse(String key, List<String> value) {
        if (value != null && !value.isEmpty()) {
            throw new IllegalArgumentException("tls_server_config." + key + " is not supported by fabricd (the JDK's TLS defaults apply); "
                    + "leave it out");
        }
    }

    /**
     * TLS 1.0 and 1.1 are deprecated (RFC 8996) and disabled by the JDK: a file that asks for them
     * would get a server that silently speaks TLS 1.2 and up, or, with a JDK whose policy allows
     * them, one that offers downgradable protocols. Refused in either case.
     */
    private static void refuseBefore12(String key, String version) {
        if ("TLS10".equals(version) || "TLS11".equals(version)) {
            throw new IllegalArgumentException("tls_server_config." + key + " " + version + " is refused: TLS 1.0 and 1.1 are deprecated "
                    + "(RFC 8996) and fabricd serves TLS 1.2 and 1.3 only; set TLS12 (the default) or TLS13");
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
            default -> throw new IllegalArgumentException("tls_server_config.client_auth_type " + ConfigText.quote(type) + " is none of "
                    + "NoClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert");
        };
    }

    /** The JDK's protocol names from min_version to max_version. */
    public List<String> protocols() {
        List<String> all = List.of("TLS12", "TLS13");
        int lo = all.indexOf(tlsServer.minVersion);
        int hi = all.indexOf(tlsServer.maxVersion);
        if (lo < 0 || hi < 0) {
            throw new IllegalArgumentException("tls_server_config: min_version and max_version are TLS12 or TLS13");
        }
        return all.subList(lo, hi + 1).stream().map(v -> "TLSv1." + (v.charAt(4) - '0')).toList();
    }

    public Map<String, String> headers() {
        return httpServer == null ? Map.of() : httpServer.headers;
    }
}
