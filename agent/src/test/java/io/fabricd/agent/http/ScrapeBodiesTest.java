package io.fabricd.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.exporters.Exposition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ScrapeBodies on simulated time: collections every interval and scrapers at their own rhythm, each
 * event jittered by a seeded generator. Every body served is the latest collection's; most lone
 * scrapes find their body rendered ahead; bodies are rendered about once per scrape, never once per
 * collection for a scraper that comes less often.
 */
class ScrapeBodiesTest {
    private static final long S = 1_000_000_000L;
    private static final String TEXT = "text/plain;version=0.0.4";

    /** One simulated run: the clock, the published collection, what was rendered and served. */
    private static final class Sim {
        long now;
        Integer collection = 0;
        int renderedAhead;
        int renderedOnRequest;
        int servedReady;
        int scrapes;
        final List<String> stale = new ArrayList<>();
        final ScrapeBodies bodies;

        Sim(long intervalNanos) {
            bodies = new ScrapeBodies(() -> collection,
                    (accept, gzip) -> new Exposition.Rendered(TEXT, ("collection " + collection).getBytes(StandardCharsets.US_ASCII)),
                    intervalNanos, () -> now);
        }

        void collect() {
            collection = collection + 1;
            renderedAhead += bodies.afterCollection();
        }

        void scrape(String format) {
            scrapes++;
            Exposition.Rendered r = bodies.request(format, TEXT, false);
            if (r != null) {
                servedReady++;
            } else {
                renderedOnRequest++;
                r = bodies.renderNow(format, TEXT, false);
            }
            String body = new String(r.body(), StandardCharsets.US_ASCII);
            if (!body.equals("collection " + collection)) {
                stale.add("at " + now + " ns served " + body + ", published " + collection);
            }
        }
    }

    /** An event on the simulated clock: a collection (scraper null) or a scrape by one scraper. */
    private record Event(long at, Scraper scraper) {
    }

    private record Scraper(String format, long every, long offset) {
    }

    /** Runs collections every {@code interval} and the scrapers for {@code duration}, every event jittered by up to ±jitter. */
    private static Sim run(long interval, List<Scraper> scrapers, long duration, long jitter, long seed) {
        Random rnd = new Random(seed);
        PriorityQueue<Event> events = new PriorityQueue<>(java.util.Comparator.comparingLong(Event::at));
        for (long t = 0; t < duration; t += interval) {
            events.add(new Event(t + (long) ((rnd.nextDouble() * 2 - 1) * jitter), null));
        }
        for (Scraper s : scrapers) {
            for (long t = s.offset(); t < duration; t += s.every()) {
                events.add(new Event(t + (long) ((rnd.nextDouble() * 2 - 1) * jitter), s));
            }
        }
        Sim sim = new Sim(interval);
        while (!events.isEmpty()) {
            Event e = events.poll();
            sim.now = Math.max(sim.now, e.at());
            if (e.scraper() == null) {
                sim.collect();
            } else {
                sim.scrape(e.scraper().format());
            }
        }
        return sim;
    }

    static Stream<Arguments> schedules() {
        List<Arguments> out = new ArrayList<>();
        long[] seeds = {1, 7, 42, 1234, 99991};
        for (long seed : seeds) {
            // fabricd's default interval against Prometheus's usual and default scrape intervals
            out.add(Arguments.of("10s/15s", 10 * S, List.of(new Scraper(TEXT, 15 * S, 3 * S)), seed));
            out.add(Arguments.of("10s/60s", 10 * S, List.of(new Scraper(TEXT, 60 * S, 27 * S)), seed));
            out.add(Arguments.of("10s/30s", 10 * S, List.of(new Scraper(TEXT, 30 * S, 14 * S)), seed));
            // scraped more often than collected: every collection's body serves several scrapes
            out.add(Arguments.of("30s/10s", 30 * S, List.of(new Scraper(TEXT, 10 * S, 4 * S)), seed));
            // an HA pair of Prometheus servers, and one asking for OpenMetrics
            out.add(Arguments.of("10s/2x15s", 10 * S, List.of(new Scraper(TEXT, 15 * S, 2 * S), new Scraper(TEXT, 15 * S, 9 * S)), seed));
            out.add(Arguments.of("10s/15s+om", 10 * S, List.of(new Scraper(TEXT, 15 * S, 2 * S),
                    new Scraper("application/openmetrics-text", 15 * S, 9 * S)), seed));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} seed {3}")
    @MethodSource("schedules")
    void lone_scrapes_find_their_body_ready_and_bodies_are_rendered_about_once_per_scrape(
            String name, long interval, List<Scraper> scrapers, long seed) {
        Sim sim = run(interval, scrapers, 3600 * S, 200_000_000L, seed);

        assertThat(sim.stale).as("bodies of an older collection served").isEmpty();
        assertThat(sim.servedReady).as("scrapes answered without rendering, of %d", sim.scrapes)
                .isGreaterThanOrEqualTo((int) (sim.scrapes * 0.9));
        assertThat(sim.renderedAhead + sim.renderedOnRequest).as("bodies rendered for %d scrapes", sim.scrapes)
                .isLessThanOrEqualTo((int) (sim.scrapes * 1.1) + 2);
    }

    @Test
    void nothing_is_rendered_ahead_before_a_rhythm_is_seen_nor_after_the_scraper_stops() {
        Sim sim = new Sim(10 * S);
        sim.collect();
        assertThat(sim.renderedAhead).isZero();
        sim.now = 5 * S;
        sim.scrape(TEXT); // one request: no rhythm yet
        sim.now = 10 * S;
        sim.collect();
        assertThat(sim.renderedAhead).isZero();
        sim.now = 20 * S;
        sim.scrape(TEXT); // 15 s after the first
        sim.now = 30 * S;
        sim.collect(); // next expected at 35 s: before the next collection
        assertThat(sim.renderedAhead).isEqualTo(1);
        sim.now = 35 * S;
        sim.scrape(TEXT);
        assertThat(sim.servedReady).isEqualTo(1);
        for (long t = 40; t <= 200; t += 10) { // the scraper is gone
            sim.now = t * S;
            sim.collect();
        }
        // rendered ahead at 50 s for the scrape expected then, at 60 s while it is less than one gap
        // (15 s) overdue, then never again
        assertThat(sim.renderedAhead).isEqualTo(3);
        assertThat(sim.stale).isEmpty();
    }

    @Test
    void a_body_rendered_on_request_serves_a_burst_but_never_another_collection() {
        Sim sim = new Sim(10 * S);
        sim.collect();
        sim.now = S;
        for (int i = 0; i < 50; i++) {
            sim.now += 1_000_000; // 50 scrapes 1 ms apart: one render
            sim.scrape(TEXT);
        }
        assertThat(sim.renderedOnRequest).isEqualTo(1);
        assertThat(sim.servedReady).isEqualTo(49);
        sim.now += 2 * S; // past the reuse window
        sim.scrape(TEXT);
        assertThat(sim.renderedOnRequest).isEqualTo(2);
        sim.now += 5 * S; // more than one gap (2 s) after the last scrape: not expected any more
        sim.collect();
        sim.scrape(TEXT);
        assertThat(sim.renderedAhead).isZero();
        assertThat(sim.renderedOnRequest).isEqualTo(3);
        assertThat(sim.stale).isEmpty();
    }
}
