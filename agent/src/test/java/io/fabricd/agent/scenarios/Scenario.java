package io.fabricd.agent.scenarios;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.model.finding.Severity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One story of a host, second by second: what happens to it ({@link #at}, {@link #every}), when
 * its agent collects and is scraped ({@link #clock}), and what the alert rules must make of it. A
 * normal event must never page (no critical alert at any time); an incident must fire the named
 * alert, for the named device, within the alert's budget after its onset (5 minutes for a level
 * state, 15 for a rate: {@link RuleTiming}), and not before. What {@code fabricd diagnose} says at
 * the end must agree.
 */
final class Scenario {
    /** The scenario's world at one moment: the host, the agent, the time. */
    record World(ScenarioHost host, SimulatedAgent agent, Instant now) {
    }

    /** An alert that must fire: its name, PromQL label matchers, the second the incident starts. */
    record Fires(String alert, String matchers, int onset) {
    }

    final String name;
    final String fixture;
    final boolean incident;
    int minutes = 40;
    Clock clock = Clock.MINUTE;
    /** What happens, by the second it happens at (before a collection of the same second). */
    final Map<Integer, List<Consumer<World>>> actions = new TreeMap<>();
    final List<Fires> fires = new ArrayList<>();
    final List<String> quiet = new ArrayList<>();
    /** The check whose finding the last collection must show, and at which severity (null: none expected). */
    String finding;
    Severity findingSeverity;
    UnaryOperator<AgentConfig> config = c -> c;

    private Scenario(String name, String fixture, boolean incident) {
        this.name = name;
        this.fixture = fixture;
        this.incident = incident;
    }

    /** A normal event: no page, ever. */
    static Scenario normal(String name, String fixture) {
        return new Scenario(name, fixture, false);
    }

    static Scenario incident(String name, String fixture) {
        return new Scenario(name, fixture, true);
    }

    Scenario minutes(int m) {
        this.minutes = m;
        return this;
    }

    Scenario clock(Clock c) {
        this.clock = c;
        return this;
    }

    Scenario at(int minute, Consumer<World> a) {
        return atSecond(60 * minute, a);
    }

    Scenario atSecond(int second, Consumer<World> a) {
        actions.computeIfAbsent(second, k -> new ArrayList<>()).add(a);
        return this;
    }

    /** At minutes {@code from}, {@code from + period}, ... up to {@code to}. */
    Scenario every(int from, int to, int period, Consumer<World> a) {
        return everySecond(60 * from, 60 * to, 60 * period, a);
    }

    Scenario everySecond(int from, int to, int period, Consumer<World> a) {
        for (int t = from; t <= to; t += period) {
            atSecond(t, a);
        }
        return this;
    }

    /** The incident starts at minute {@code from}. */
    Scenario fires(String alert, String matchers, int from) {
        return firesAfterSecond(alert, matchers, 60 * from);
    }

    Scenario firesAfterSecond(String alert, String matchers, int onset) {
        fires.add(new Fires(alert, matchers, onset));
        return this;
    }

    Scenario quiet(String alert) {
        quiet.add(alert);
        return this;
    }

    /** The last collection's diagnosis has a finding of {@code check} at {@code severity} (null severity: no such finding above info). */
    Scenario diagnose(String check, Severity severity) {
        this.finding = check;
        this.findingSeverity = severity;
        return this;
    }

    Scenario config(UnaryOperator<AgentConfig> c) {
        this.config = c;
        return this;
    }

    @Override
    public String toString() {
        return name;
    }
}
