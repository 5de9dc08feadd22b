package io.pgvs3.core;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by creation time. Job ids
 * and stream message ids alike.
 */
public final class UuidV7 {

    /** The form OJS requires for a client-provided id: a lowercase UUIDv7. */
    public static final Pattern PATTERN =
            Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");

    private static final SecureRandom RANDOM = new SecureRandom();

    private UuidV7() {
    }

    public static UUID generate() {
        long millis = System.currentTimeMillis();
        long randA = RANDOM.nextInt(1 << 12);
        long msb = (millis << 16) | 0x7000L | randA;
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    /** Whether {@code value} is a lowercase UUIDv7 in canonical form. */
    public static boolean isValid(String value) {
        return value != null && PATTERN.matcher(value).matches();
    }
}
