package io.fabricd.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A flood answered from thousands of addresses cannot push the scrapers and the kubelet out of the
 * known sources: new addresses join at a bounded rate, known ones are refreshed at any rate.
 */
class KnownSourcesTest {
    @Test
    void aFloodFromManyAddressesJoinsSlowerThanAScraperComesBack() {
        AtomicLong clock = new AtomicLong();
        KnownSources known = new KnownSources(clock::get);
        known.answered("10.0.0.1"); // the scraper
        known.answered("10.0.0.2"); // the kubelet
        // 30 s of a flood answered from 5 000 new addresses a second, the kubelet every 10 s and
        // the scraper every 30 s
        for (int s = 0; s < 30; s++) {
            clock.set(s * 1_000_000_000L);
            for (int i = 0; i < 5_000; i++) {
                known.answered("127." + (s % 200) + "." + (i / 250) + "." + (i % 250));
            }
            if (s % 10 == 9) {
                known.answered("10.0.0.2");
            }
        }
        assertThat(known.known("10.0.0.1")).as("the scraper, 30 s after its last answer").isTrue();
        assertThat(known.known("10.0.0.2")).isTrue();
        int flood = 0;
        for (int s = 0; s < 30; s++) {
            for (int i = 0; i < 5_000; i++) {
                flood += known.known("127." + (s % 200) + "." + (i / 250) + "." + (i % 250)) ? 1 : 0;
            }
        }
        assertThat(flood).isEqualTo(30 * KnownSources.JOINS_PER_SECOND - 2); // the scraper and the kubelet joined in the first second
    }
}
