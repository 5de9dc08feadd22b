package io.pgvs3.core.job;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * UUIDv7 job ids (RFC 9562): a millisecond timestamp followed by random bits, so ids sort by creation time.
 */
public final class UuidV7 {

    /** The form OJS requires for a client-provided job id: a lowercase UUIDv7. */
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

    public static boolean isValid(String value) {
        return value != null && PATTERN.matcher(value).matches();
    }
}
