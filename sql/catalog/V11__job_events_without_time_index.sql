-- Cheaper job transitions: the event log loses its index on occurred_at. Every enqueue, claim and ack inserts an
-- event, and the entry in that B-tree cost about as much as a fifth of the event row (about 3 ms of server time per
-- 1000 events on PostgreSQL 15). Its only reader was the maintenance pass, which now prunes the log from its head in
-- id order (see JobStore.maintain): ids are taken in insert order, so the oldest events are at the head, and a pass
-- with nothing to delete reads one row by the primary key.
DROP INDEX s3p.job_events_occurred_at;
