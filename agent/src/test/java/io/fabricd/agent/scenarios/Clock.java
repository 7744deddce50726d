package io.fabricd.agent.scenarios;

/**
 * When a scenario's agent collects and Prometheus scrapes it, in seconds from the scenario's start
 * (every {@code collectEvery} from {@code collectAt}, every {@code scrapeEvery} from
 * {@code scrapeAt}); the rules are evaluated every minute on the minute. A scrape serves the last
 * finished collection. Where an onset falls among these decides how long it takes to reach a rule.
 */
record Clock(String name, int collectEvery, int collectAt, int scrapeEvery, int scrapeAt) {
    /** Collected and scraped once a minute, on the minute, just before the rules are evaluated. */
    static final Clock MINUTE = new Clock("collected and scraped on the minute", 60, 0, 60, 0);
    /** Once a minute, but scraped 50 s after each collection and evaluated 10 s after the scrape: the longest way in. */
    static final Clock SCRAPED_LATE = new Clock("scraped 50 s after each collection", 60, 0, 60, 50);
    /** The agent's and the Helm chart's defaults: a collection every 10 s, a scrape every 30 s. */
    static final Clock CHART = new Clock("collected every 10 s, scraped every 30 s", 10, 0, 30, 20);

    boolean collects(int second) {
        return second >= collectAt && (second - collectAt) % collectEvery == 0;
    }

    boolean scrapes(int second) {
        return second >= scrapeAt && (second - scrapeAt) % scrapeEvery == 0;
    }

    @Override
    public String toString() {
        return name;
    }
}
