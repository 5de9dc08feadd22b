-- Cheaper enqueues: the locator's index of queue names compares them bytewise (COLLATE "C") instead of by the
-- database's collation. Every enqueue inserts one entry per job into it, and under a libc collation such as
-- C.UTF-8 or en_US.UTF-8 each comparison on the way down the tree was a strcoll() call: about a third of the cost
-- of the locator row in a 1000-job enqueue. Its readers (dropping a queue, pruning the rows of dropped queues)
-- compare queue names for equality or walk them in index order, which any fixed order serves.
CREATE INDEX job_locator_queue_c ON s3p.job_locator (queue COLLATE "C");
DROP INDEX s3p.job_locator_queue;

-- As in V5, walking the queue names in the index's order.
CREATE OR REPLACE FUNCTION s3p.prune_job_locator(p_limit integer) RETURNS bigint
LANGUAGE sql AS $$
    WITH RECURSIVE located(queue) AS (
        (SELECT l.queue COLLATE "C" FROM s3p.job_locator l ORDER BY l.queue COLLATE "C" LIMIT 1)
        UNION ALL
        SELECT (SELECT l.queue COLLATE "C" FROM s3p.job_locator l
                WHERE l.queue COLLATE "C" > located.queue ORDER BY l.queue COLLATE "C" LIMIT 1)
        FROM located
        WHERE located.queue IS NOT NULL
    ), gone AS (
        SELECT l.id
        FROM located g JOIN s3p.job_locator l ON l.queue COLLATE "C" = g.queue
        WHERE g.queue IS NOT NULL AND NOT EXISTS (SELECT 1 FROM s3p.queues q WHERE q.name = g.queue COLLATE "default")
        LIMIT p_limit
    ), deleted AS (
        DELETE FROM s3p.job_locator l USING gone WHERE l.id = gone.id RETURNING 1
    )
    SELECT count(*) FROM deleted
$$;

-- Deletes the locator rows of a dropped queue, by the index above.
CREATE FUNCTION s3p.forget_job_locations(p_queue text) RETURNS bigint
LANGUAGE sql AS $$
    WITH deleted AS (
        DELETE FROM s3p.job_locator l WHERE l.queue COLLATE "C" = p_queue RETURNING 1
    )
    SELECT count(*) FROM deleted
$$;
