package io.fabricd.model;

/**
 * One path that could not be read or understood during a collection.
 *
 * @param path  relative to the host root
 * @param error errno name (ENOENT, EINVAL, ETIMEDOUT, ...) or a parse problem ("not a number: 'N/A (no PMA)'")
 */
public record ReadError(String path, String error) {
}
