package io.fabricd.exporters;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.fabricd.model.HostModel;
import io.fabricd.model.PortState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.time.Instant;

/**
 * The host model as JSON ({@code /api/v1/snapshot}): snake_case names, absent values left out,
 * counters as unsigned 64-bit integers, times in ISO-8601 UTC, states as "4: ACTIVE".
 */
public final class ModelJson {
    private static final ObjectMapper MAPPER = create();

    private ModelJson() {
    }

    private static ObjectMapper create() {
        SimpleModule m = new SimpleModule("fabricd");
        m.addSerializer(Long.class, new JsonSerializer<Long>() {
            @Override
            public void serialize(Long v, JsonGenerator g, SerializerProvider p) throws IOException {
                if (v >= 0) {
                    g.writeNumber(v);
                } else {
                    g.writeNumber(new BigInteger(Long.toUnsignedString(v)));
                }
            }
        });
        m.addSerializer(Instant.class, ToStringSerializer.instance);
        m.addSerializer(PortState.class, ToStringSerializer.instance);
        return new ObjectMapper()
                .registerModule(m)
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .setDefaultPropertyInclusion(JsonInclude.Include.NON_NULL)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    }

    public static byte[] toJson(HostModel model) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(model);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
