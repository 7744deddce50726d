package io.fabricd.agent.scenarios;

import io.fabricd.model.finding.Severity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One story of a host, minute by minute: what happens to it ({@link #at}, {@link #every}) and what
 * the alert rules must make of it. A normal event must never page (no critical alert at any time);
 * an incident must fire the named alert, for the named device, within 15 minutes of the minute it
 * starts. What {@code fabricd diagnose} says at the end must agree.
 */
final class Scenario {
    /** The scenario's world at one minute: the host, the agent, the time. */
    record World(ScenarioHost host, SimulatedAgent agent, Instant now, int minute) {
    }

    /** An alert that must fire: its name, PromQL label matchers, the minute the incident starts. */
    record Fires(String alert, String matchers, int from) {
    }

    final String name;
    final String fixture;
    final boolean incident;
    int minutes = 40;
    final Map<Integer, List<Consumer<World>>> actions = new TreeMap<>();
    final List<Fires> fires = new ArrayList<>();
    final List<String> quiet = new ArrayList<>();
    /** The check whose finding the last collection must show, and at which severity (null: none expected). */
    String finding;
    Severity findingSeverity;
    UnaryOperator<io.fabricd.agent.config.AgentConfig> config = c -> c;

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

    Scenario at(int minute, Consumer<World> a) {
        actions.computeIfAbsent(minute, k -> new ArrayList<>()).add(a);
        return this;
    }

    Scenario every(int from, int to, int period, Consumer<World> a) {
        for (int m = from; m <= to; m += period) {
            at(m, a);
        }
        return this;
    }

    Scenario fires(String alert, String matchers, int from) {
        fires.add(new Fires(alert, matchers, from));
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

    Scenario config(UnaryOperator<io.fabricd.agent.config.AgentConfig> c) {
        this.config = c;
        return this;
    }

    @Override
    public String toString() {
        return name;
    }
}
