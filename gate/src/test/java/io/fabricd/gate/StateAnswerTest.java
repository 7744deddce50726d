package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.finding.Subject;
import io.fabricd.preflight.FindingInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** An agent's state answer as the gate reads it: each finding's subject is the model's {@link Subject}. */
class StateAnswerTest {
    private static StateAnswer parse(String findings) throws IOException {
        return StateAnswer.parse(("{\"version\":1,\"node\":\"a\",\"host\":\"a\",\"collected_at\":\"2026-01-01T00:00:00Z\",\"findings\":["
                + findings + "],\"probes\":[]}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aFindingsSubjectReadsAsTheModelsOne() throws Exception {
        StateAnswer a = parse("{\"check\":\"pfc_missing\",\"severity\":\"critical\",\"subject\":{\"device\":\"mlx5_0\",\"port\":1,"
                + "\"priority\":3,\"lane\":2}},{\"check\":\"clock_skew\",\"severity\":\"warning\",\"subject\":{}},"
                + "{\"check\":\"clock_skew\",\"severity\":\"warning\"}");
        // a part this build does not know (lane) is left out; none, or no subject at all, is the whole host
        assertThat(a.findings()).extracting(FindingInput::subject)
                .containsExactly(Subject.port("mlx5_0", 1).withPriority(3), Subject.HOST, Subject.HOST);
    }

    @Test
    void aSubjectThatIsNotOneMakesTheAnswerGarbage() {
        assertThatThrownBy(() -> parse("{\"check\":\"pfc_missing\",\"severity\":\"critical\",\"subject\":{\"port\":\"first\"}}"))
                .isInstanceOf(IOException.class).hasMessageContaining("a readable subject").hasMessageContaining("not a fabricd agent");
    }
}
