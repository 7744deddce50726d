package io.fabricd.collectors.source;

import java.util.function.Supplier;

/**
 * Where a whole collection runs. The live host's owner hands the collection its source's reader
 * ({@link LiveHostSource#runner}): the collection then runs on the reader thread, where its reads
 * need no hand-off each and are still bounded in time. Anything else runs on the calling thread.
 */
public interface CollectionRunner {

    /** Runs on the calling thread. */
    CollectionRunner CALLER = new CollectionRunner() {
        @Override
        public <T> T run(Supplier<T> collection) {
            return collection.get();
        }
    };

    /** Runs {@code collection}, perhaps again after it was abandoned (a read hung); its result. */
    <T> T run(Supplier<T> collection);
}
