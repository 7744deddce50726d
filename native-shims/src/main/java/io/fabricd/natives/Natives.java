package io.fabricd.natives;

/**
 * The native bindings a part of fabricd is given: libc and the verbs shim, loaded once per process
 * and handed on, so that what could not load is known in one place.
 */
public record Natives(LibC libc, VerbsShim verbs) {
    /** libc and the verbs shim of this process, loaded at the first call; never throws (each says why it is unavailable). */
    public static Natives load() {
        return Loaded.NATIVES;
    }

    /** Loaded when first asked for (the JVM's class initialisation: once, thread-safe). */
    private static final class Loaded {
        static final Natives NATIVES = new Natives(LibC.load(), VerbsShim.load());
    }
}
