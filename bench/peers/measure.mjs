// The measurements every Node peer driver shares. A driver is started as
//   node <driver>.mjs '<json settings>'
// and prints one line "PEER-RESULT <json>" on stdout; everything else it prints is diagnostics.

export const settings = JSON.parse(process.argv[2]);
export const payload = JSON.parse(settings.payload);

const now = () => Number(process.hrtime.bigint()) / 1e6;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Closed loop, one caller: calls for settings.warmupMs, then whole calls for at least settings.measureMs and at least
 * settings.minCalls calls; items per second from the first measured call's start to the last one's end.
 */
export async function rate(step) {
    const begin = now();
    let done = 0;
    let start = -1;
    let before = 0;
    let calls = 0;
    for (;;) {
        done += await step();
        const t = now();
        if (start >= 0) {
            calls++;
        }
        if (start < 0 && t - begin >= settings.warmupMs) {
            start = t;
            before = done;
        }
        if (start >= 0 && t - start >= settings.measureMs && calls >= settings.minCalls) {
            return { rate: (done - before) / ((t - start) / 1000), items: done - before, calls, seconds: (t - start) / 1000 };
        }
    }
}

/** Adds up to settings.backlog jobs, addBatch(n) adding n, for at most settings.fillLimitMs; answers how many. */
export async function fill(addBatch) {
    const deadline = now() + settings.fillLimitMs;
    let done = 0;
    while (done < settings.backlog && now() < deadline) {
        done += await addBatch(Math.min(1000, settings.backlog - done));
    }
    return done;
}

/** Counts handled jobs; drain() times from start() until every one of total was handled or the limit passed. */
export function counter() {
    let handled = 0;
    return {
        add(n = 1) {
            handled += n;
        },
        get handled() {
            return handled;
        },
        async drain(total, start, stop) {
            const begin = now();
            await start();
            const deadline = begin + settings.drainLimitMs;
            while (handled < total && now() < deadline) {
                await sleep(1);
            }
            const seconds = (now() - begin) / 1000;
            const items = Math.min(total, handled);
            await stop();
            return { rate: items / seconds, items, total, seconds };
        },
    };
}

/** Matches enqueue-returned and handler-entered moments by job key, like the Java LatencyProbe. */
export function probe() {
    const pending = new Map();
    const latencies = [];
    let committed = 0;
    let entered = 0;
    const match = (key, t, commit) => {
        if (key === undefined || key === null) {
            return;
        }
        const other = pending.get(key);
        if (other === undefined) {
            pending.set(key, { t, commit });
            return;
        }
        pending.delete(key);
        latencies.push(Math.max(0, commit ? other.t - t : t - other.t));
    };
    return {
        committed(key) {
            committed++;
            match(key, now(), true);
        },
        entered(key) {
            entered++;
            match(key, now(), false);
        },
        reset() {
            pending.clear();
            latencies.length = 0;
            committed = 0;
            entered = 0;
        },
        async awaitAll(timeoutMs) {
            const deadline = now() + timeoutMs;
            while (entered < committed) {
                if (now() > deadline) {
                    throw new Error(`only ${entered} of ${committed} jobs reached their handler within ${timeoutMs} ms`);
                }
                await sleep(5);
            }
        },
        summary() {
            const sorted = [...latencies].sort((a, b) => a - b);
            const at = (p) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
            return { p50: at(50), p99: at(99), max: sorted.length === 0 ? 0 : sorted[sorted.length - 1], count: sorted.length };
        },
    };
}

/** Open loop: job i is due at start + i / settings.rate, two callers share the schedule; answers how many ran. */
export async function paced(enqueueOne) {
    const total = Math.max(1, Math.floor((settings.rate * settings.seconds)));
    const interval = 1000 / settings.rate;
    const start = now() + 20;
    const caller = async (first) => {
        for (let i = first; i < total; i += 2) {
            const wait = start + i * interval - now();
            if (wait > 0) {
                await sleep(wait);
            }
            await enqueueOne(i);
        }
    };
    await Promise.all([caller(0), caller(1)]);
    return total;
}

export function report(result) {
    process.stdout.write('PEER-RESULT ' + JSON.stringify(result) + '\n');
}

/** Runs main, reports its result and exits; a failure goes to stderr with a non-zero exit. */
export function main(body) {
    body().then((result) => {
        report(result);
        process.exit(0);
    }, (error) => {
        process.stderr.write((error && error.stack) || String(error));
        process.stderr.write('\n');
        process.exit(1);
    });
}
