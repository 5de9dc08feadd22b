package io.pgvs3.core;

import java.util.regex.Pattern;

import io.pgvs3.core.error.Pgvs3Exception;

/**
 * Names that travel in a URL path segment (crons, stream consumers and members): 1 to 255 letters, digits,
 * {@code .}, {@code _}, {@code :} or {@code -}, starting with a letter or digit, so that no name is {@code .},
 * {@code ..} or holds a {@code /}. The same rule holds when a resource is created and when it is read or deleted.
 */
public final class ResourceNames {

    private static final Pattern NAME = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$");

    private ResourceNames() {
    }

    public static boolean isValid(String value) {
        return value != null && NAME.matcher(value).matches();
    }

    /** The value, or a 400 {@code invalid_request} naming the field. */
    public static String require(String value, String field) {
        if (!isValid(value)) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be 1 to 255 letters, digits, '.', '_', ':' or '-', "
                    + "starting with a letter or digit", field);
        }
        return value;
    }
}
