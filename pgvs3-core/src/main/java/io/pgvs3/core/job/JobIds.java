package io.pgvs3.core.job;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueName;

/**
 * Job ids the server generates: UUIDv7 ids that carry their queue's id tag, the first 32 bits of the md5 of its name
 * (as {@code s3p.queue_id_tag} computes it), so that a lookup by id finds the queue from the id and the enqueue writes
 * no row to {@code s3p.job_locator} for them. See docs/jobs.md, "Storage".
 */
public final class JobIds {

    private static final int MAX_CACHED = 10_000;

    private static final Map<String, Integer> TAGS = new ConcurrentHashMap<>();

    private JobIds() {
    }

    /** A new job id for a job of {@code queue}. */
    public static UUID generate(QueueName queue) {
        return UuidV7.generateTagged(tag(queue.value()));
    }

    /** The id tag of a queue name: the first four bytes of its md5, big-endian. */
    public static int tag(String queue) {
        Integer tag = TAGS.get(queue);
        if (tag == null) {
            tag = md5Prefix(queue);
            if (TAGS.size() < MAX_CACHED) {
                TAGS.put(queue, tag);
            }
        }
        return tag;
    }

    private static int md5Prefix(String queue) {
        try {
            byte[] digest = MessageDigest.getInstance("MD5").digest(queue.getBytes(StandardCharsets.UTF_8));
            return ((digest[0] & 0xFF) << 24) | ((digest[1] & 0xFF) << 16) | ((digest[2] & 0xFF) << 8) | (digest[3] & 0xFF);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("MD5 is not available", ex);
        }
    }
}
