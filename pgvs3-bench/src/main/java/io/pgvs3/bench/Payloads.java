package io.pgvs3.bench;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The event and job payloads every scenario writes: JSON documents of one fixed size, the same for pgvs3 and the
 * baselines. They are generated once, so the load generator spends its time on the database calls.
 */
public final class Payloads {

    public static final String TYPE = "order.created";

    /** The size of every payload in bytes (UTF-8 JSON text). */
    public static final int SIZE_BYTES = 256;

    private static final String TEMPLATE = "{\"order_id\":\"%s\",\"customer_id\":\"cus_4815162342\",\"currency\":\"EUR\","
            + "\"amount_cents\":129900,\"items\":[{\"sku\":\"SKU-100231\",\"qty\":2,\"price_cents\":49950},"
            + "{\"sku\":\"SKU-200417\",\"qty\":1,\"price_cents\":30000}],\"channel\":\"web\",\"note\":\"%s\"}";

    private static final int POOL = 4096;

    private static final String[] JSON = new String[POOL];

    private static final long ID_PREFIX = ThreadLocalRandom.current().nextLong();

    private static final AtomicLong ID_COUNTER = new AtomicLong();

    static {
        int base = String.format(TEMPLATE, UUID.randomUUID(), "").getBytes(StandardCharsets.UTF_8).length;
        String padding = "x".repeat(Math.max(0, SIZE_BYTES - base));
        for (int i = 0; i < POOL; i++) {
            JSON[i] = String.format(TEMPLATE, UUID.randomUUID(), padding);
        }
    }

    private Payloads() {
    }

    /** A payload; consecutive calls cycle through a few thousand distinct documents. */
    public static String json() {
        return JSON[ThreadLocalRandom.current().nextInt(POOL)];
    }

    /** A unique message or job id in UUID form, cheap to make. */
    public static String messageId() {
        return new UUID(ID_PREFIX, ID_COUNTER.incrementAndGet()).toString();
    }
}
