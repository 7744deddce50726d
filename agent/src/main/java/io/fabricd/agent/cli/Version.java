package io.fabricd.agent.cli;

import picocli.CommandLine;

/** fabricd's version, from the jar manifest ("dev" when run from classes). */
public final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {text()};
    }

    /** "fabricd 0.x.y". */
    public static String text() {
        String v = Version.class.getPackage().getImplementationVersion();
        return "fabricd " + (v == null ? "dev" : v);
    }
}
