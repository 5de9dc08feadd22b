// graphile-worker peer: addJobs of 1,000 for the batch enqueue, a worker with the settings of its performance
// guide (concurrentJobs 24, maxPoolSize 25, localQueue 500, batched completion) for the drain and the latency.
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import { counter, fill, main, paced, payload, probe, rate, settings } from './measure.mjs';

const TASK = 'bench_noop';
const quiet = new Logger(() => () => {});
const worker = {
    connectionString: settings.url,
    concurrentJobs: 24,
    maxPoolSize: 25,
    localQueue: { size: 500 },
    completeJobBatchDelay: 0,
    failJobBatchDelay: 0,
};

function startWorker(taskList) {
    return run({ preset: { worker }, logger: quiet, noHandleSignals: true, taskList });
}

main(async () => {
    const utils = await makeWorkerUtils({ connectionString: settings.url, logger: quiet });
    await utils.migrate();
    const specs = (n) => Array.from({ length: n }, () => ({ identifier: TASK, payload }));
    try {
        if (settings.mode === 'enqueue') {
            const batch = specs(1000);
            return await rate(async () => (await utils.addJobs(batch)).length);
        }
        if (settings.mode === 'drain') {
            const filled = await fill(async (n) => (await utils.addJobs(specs(n))).length);
            const jobs = counter();
            let runner;
            return await jobs.drain(filled, async () => {
                runner = await startWorker({ [TASK]: async () => jobs.add() });
            }, async () => runner.stop());
        }
        const latency = probe();
        const runner = await startWorker({ [TASK]: async (job) => latency.entered(job.key) });
        try {
            await utils.addJob(TASK, { key: 'warm', ...payload });
            latency.committed('warm');
            await latency.awaitAll(30_000);
            latency.reset();
            const sent = await paced(async (i) => {
                await utils.addJob(TASK, { key: String(i), ...payload });
                latency.committed(String(i));
            });
            await latency.awaitAll(60_000);
            return { ...latency.summary(), sent };
        }
        finally {
            await runner.stop();
        }
    }
    finally {
        await utils.release();
    }
});
