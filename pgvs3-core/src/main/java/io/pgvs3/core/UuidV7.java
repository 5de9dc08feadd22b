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

    // one generator per thread: a shared SecureRandom serialises every id of a 1000-message append on its lock
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(SecureRandom::new);

    private static final long RAND_B = 0x3FFFFFFFFFFFFFFFL;

    private static final long TAG_LOW = 0xFFFFFFL;

    private UuidV7() {
    }

    public static UUID generate() {
        long millis = System.currentTimeMillis();
        SecureRandom random = RANDOM.get();
        long randA = random.nextInt(1 << 12);
        long msb = (millis << 16) | 0x7000L | randA;
        long lsb = (random.nextLong() & RAND_B) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    /**
     * An id that carries a 32-bit tag in its bytes 9 to 12 (bits 55 to 24 of its low half): a job id carries its
     * queue's tag (see {@code JobIds}). Still a UUIDv7 that sorts by its millisecond: 42 random bits remain, the 12 of
     * {@code rand_a}, the 6 below the variant and the low 24.
     */
    public static UUID generateTagged(int tag) {
        long millis = System.currentTimeMillis();
        long random = RANDOM.get().nextLong();
        long msb = (millis << 16) | 0x7000L | (random >>> 52);
        long lsb = 0x8000000000000000L | (random & 0x3F00000000000000L) | ((tag & 0xFFFFFFFFL) << 24) | (random & TAG_LOW);
        return new UUID(msb, lsb);
    }

    /** The 32-bit tag an id carries in its bytes 9 to 12 (see {@link #generateTagged(int)}); any UUID has one. */
    public static int tag(UUID id) {
        return (int) (id.getLeastSignificantBits() >>> 24);
    }

    /**
     * {@code count} ids made together, in ascending order: one random draw, then the next values of its 74 random
     * bits as a counter (RFC 9562, 6.2, monotonic random with an increment of one). As unique as ids drawn one by one
     * (a collision needs another draw within the same millisecond to land within {@code count} of this one), at a
     * fraction of the cost: a draw from the shared system generator costs more than the rest of an id together.
     */
    public static UUID[] generate(int count) {
        SecureRandom random = RANDOM.get();
        return sequence(System.currentTimeMillis(), random.nextInt(1 << 12), random.nextLong(), count);
    }

    /** {@code count} consecutive ids from the 12 random bits {@code randA} and the 62 low bits of {@code randB}. */
    static UUID[] sequence(long millis, int randA, long randB, int count) {
        UUID[] ids = new UUID[count];
        long high = randA & 0xFFFL;
        long low = randB & RAND_B;
        for (int i = 0; i < count; i++) {
            ids[i] = new UUID((millis << 16) | 0x7000L | high, low | 0x8000000000000000L);
            low = (low + 1) & RAND_B;
            if (low == 0) {
                high = (high + 1) & 0xFFFL;
            }
        }
        return ids;
    }

    /** Whether {@code value} is a lowercase UUIDv7 in canonical form. */
    public static boolean isValid(String value) {
        return value != null && PATTERN.matcher(value).matches();
    }
}
