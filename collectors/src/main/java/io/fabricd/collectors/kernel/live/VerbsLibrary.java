package io.fabricd.collectors.kernel.live;

/**
 * Whether this process can load the verbs shim and, through it, libibverbs (for `fabricd --version`
 * and for checking an installation: an image or a package without libibverbs1 says so here).
 */
public final class VerbsLibrary {
    private VerbsLibrary() {
    }

    /** Why verbs cannot be used, in words, or null when the shim and libibverbs loaded. */
    public static String unavailable() {
        return VerbsShim.unavailable();
    }
}
