package io.fabricd.collectors.source;

/**
 * Thrown in an abandoned collection's thread once its hung read returned ({@link BoundedReader}):
 * the collection stops there. An Error, so that no collector's handler takes it for a failure of
 * its own and goes on; {@code HostCollection} lets it pass.
 */
public final class CollectionAbandoned extends Error {
    CollectionAbandoned() {
        super("collection abandoned after a read timed out", null, false, false);
    }
}
