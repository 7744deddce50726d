package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;

/**
 * A subject a check could not judge, and why: no finding is built on what was not read, and this
 * says so instead (interfaces.md: {@code not_judged} of {@code diagnose --format json},
 * {@code fabric_check_not_judged}).
 *
 * @param subject what the check would have judged, as its findings name it
 * @param detail  what is missing and where, in words: the function at fault and what stopped its read
 */
@JsonPropertyOrder({"check", "subject", "reason", "detail"})
public record NotJudged(String check, Subject subject, Reason reason, String detail) {

    /** Why a subject was not judged. */
    public enum Reason {
        /** A function the check reads no longer answers: it reads all ones (hardware_missing says whether it was expected). */
        GONE,
        /** fabricd read less than the check needs: 64 bytes without CAP_SYS_ADMIN, 256 without extended config access. */
        BLIND,
        /** What was read is broken: a capability list that loops, points outside its space, or holds an ID or a length that cannot be. */
        MALFORMED;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public NotJudged {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(reason, "reason");
        subject = subject == null ? Subject.HOST : subject;
    }
}
