package io.fabricd.natives;

/**
 * The native bindings a part of fabricd is given: libc and the verbs shim, loaded once where fabricd
 * is put together and handed on, so that what could not load is known in one place.
 */
public record Natives(LibC libc, VerbsShim verbs) {
    /** libc and the verbs shim of this process; never throws (each says why it is unavailable). */
    public static Natives load() {
        return new Natives(LibC.load(), VerbsShim.load());
    }
}
