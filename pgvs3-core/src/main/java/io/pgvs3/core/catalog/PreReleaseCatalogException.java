package io.pgvs3.core.catalog;

/**
 * The database holds a catalog made by a pre-release build, which this version cannot migrate; the message says
 * what to do.
 */
public class PreReleaseCatalogException extends IllegalStateException {

    public PreReleaseCatalogException(String message) {
        super(message);
    }
}
