package io.fabricd.agent.preflight;

import java.nio.charset.StandardCharsets;

/**
 * What a signed POST path (preflight, bandwidth) answers: 200 with a JSON body (signed by the HTTP layer), or another status
 * with one line of text; {@code retryAfterSeconds} over 0 goes out as {@code Retry-After} (429).
 */
public record Answer(int status, byte[] body, long retryAfterSeconds) {
    public static Answer json(byte[] body) {
        return new Answer(200, body, 0);
    }

    public static Answer line(int status, String text) {
        return new Answer(status, (text + "\n").getBytes(StandardCharsets.UTF_8), 0);
    }

    /** 429: busy, or over the rate; ask again in {@code retryAfterSeconds} (1 or more). */
    static Answer busy(String text, long retryAfterSeconds) {
        return new Answer(429, (text + "\n").getBytes(StandardCharsets.UTF_8), Math.max(1, retryAfterSeconds));
    }
}
