package io.pgvs3.core.stream;

import java.security.SecureRandom;
import java.util.UUID;

/** UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by creation time. */
public final class UuidV7 {

    private static final SecureRandom RANDOM = new SecureRandom();

    private UuidV7() {
    }

    public static UUID next() {
        long millis = System.currentTimeMillis();
        long randA = RANDOM.nextInt(1 << 12);
        long high = (millis << 16) | 0x7000L | randA;
        long low = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low);
    }
}
