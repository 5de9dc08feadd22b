// pg-boss peer: insert of 1,000 for the batch enqueue; work with batchSize 100 for the drain and the latency,
// the queue created with notify and the instance listening, so that a new job wakes a worker at once.
import { PgBoss } from 'pg-boss';
import { counter, fill, main, paced, payload, probe, rate, settings } from './measure.mjs';

const QUEUE = 'bench-noop';
const WORK = { batchSize: 100, localConcurrency: 4, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true };

main(async () => {
    const boss = new PgBoss({ connectionString: settings.url, max: 10, useListenNotify: true, schedule: false });
    boss.on('error', (error) => process.stderr.write(`pg-boss: ${error}\n`));
    await boss.start();
    await boss.createQueue(QUEUE, { notify: true });
    const inserts = (n) => Array.from({ length: n }, () => ({ data: payload }));
    try {
        if (settings.mode === 'enqueue') {
            const batch = inserts(1000);
            return await rate(async () => {
                await boss.insert(QUEUE, batch);
                return batch.length;
            });
        }
        if (settings.mode === 'drain') {
            const filled = await fill(async (n) => {
                await boss.insert(QUEUE, inserts(n));
                return n;
            });
            const jobs = counter();
            return await jobs.drain(filled, async () => {
                await boss.work(QUEUE, WORK, async (batch) => jobs.add(batch.length));
            }, async () => boss.offWork(QUEUE, { wait: true }));
        }
        const latency = probe();
        await boss.work(QUEUE, WORK, async (batch) => batch.forEach((job) => latency.entered(job.data.key)));
        await boss.send(QUEUE, { key: 'warm', ...payload });
        latency.committed('warm');
        await latency.awaitAll(30_000);
        latency.reset();
        const sent = await paced(async (i) => {
            await boss.send(QUEUE, { key: String(i), ...payload });
            latency.committed(String(i));
        });
        await latency.awaitAll(60_000);
        await boss.offWork(QUEUE, { wait: true });
        return { ...latency.summary(), sent };
    }
    finally {
        await boss.stop({ graceful: false, close: true });
    }
});
