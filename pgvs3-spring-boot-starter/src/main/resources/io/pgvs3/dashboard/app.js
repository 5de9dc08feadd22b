/*
 * pgvs3 operator dashboard: plain JavaScript over the HTTP routes under /ojs, refreshed by polling.
 * Every value read from the server reaches the page through textContent, never as HTML.
 */
(function () {
    'use strict';

    var REFRESH_MS = 2000;
    var API = '../ojs/v1';
    var JOB_STATES = ['available', 'active', 'scheduled', 'retryable', 'dead_letter'];
    var STATE_COLOURS = { available: '#2f6fdf', active: '#1f8a4c', scheduled: '#8a94a6', retryable: '#b7791f', dead_letter: '#c53030' };

    var settings = { read_only: false };
    var view = document.getElementById('view');
    var expanded = {};
    var timer = null;
    var current = null;
    var busy = false;

    // ---- DOM helpers -------------------------------------------------------------------------------------------

    function el(tag, attrs) {
        var node = document.createElement(tag);
        if (attrs) {
            Object.keys(attrs).forEach(function (key) {
                var value = attrs[key];
                if (value === null || value === undefined || value === false) {
                    return;
                }
                if (key === 'text') {
                    node.textContent = String(value);
                } else if (key === 'onclick') {
                    node.addEventListener('click', value);
                } else {
                    node.setAttribute(key, value === true ? '' : String(value));
                }
            });
        }
        for (var i = 2; i < arguments.length; i++) {
            append(node, arguments[i]);
        }
        return node;
    }

    function append(node, child) {
        if (child === null || child === undefined || child === false) {
            return;
        }
        if (Array.isArray(child)) {
            child.forEach(function (c) { append(node, c); });
        } else if (child instanceof Node) {
            node.appendChild(child);
        } else {
            node.appendChild(document.createTextNode(String(child)));
        }
    }

    function table(headers, rows, emptyText) {
        var head = el('tr', null, headers.map(function (h) {
            var numeric = h.charAt(0) === '#';
            return el('th', { 'class': numeric ? 'num' : null, text: numeric ? h.substring(1) : h });
        }));
        if (!rows.length) {
            return el('table', null, el('thead', null, head),
                el('tbody', null, el('tr', null, el('td', { 'class': 'empty', colspan: headers.length, text: emptyText }))));
        }
        return el('table', null, el('thead', null, head), el('tbody', null, rows));
    }

    function num(value) {
        return el('td', { 'class': 'num', text: value === null || value === undefined ? '–' : Number(value).toLocaleString() });
    }

    function pill(text) {
        return el('span', { 'class': 'pill ' + text, text: text });
    }

    function action(label, handler, danger) {
        if (settings.read_only) {
            return null;
        }
        return el('button', { 'class': danger ? 'danger' : null, 'data-action': label.toLowerCase(), text: label,
            onclick: function (event) {
                event.target.disabled = true;
                Promise.resolve(handler()).then(refresh, function (error) { showError(error); refresh(); });
            } });
    }

    function toggle(key, label) {
        return el('button', { 'data-action': 'inspect', text: expanded[key] ? 'Hide' : label || 'Inspect',
            onclick: function () { expanded[key] = !expanded[key]; refresh(); } });
    }

    function detail(key, value) {
        return expanded[key] ? el('pre', { 'class': 'detail mono', text: JSON.stringify(value, null, 2) }) : null;
    }

    function ago(iso) {
        if (!iso) {
            return '–';
        }
        var seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
        var future = seconds < 0;
        seconds = Math.abs(seconds);
        var text = seconds < 60 ? seconds + 's' : seconds < 3600 ? Math.round(seconds / 60) + 'm'
            : seconds < 172800 ? Math.round(seconds / 3600) + 'h' : Math.round(seconds / 86400) + 'd';
        return future ? 'in ' + text : text + ' ago';
    }

    function time(iso) {
        return el('span', { title: iso || '', text: ago(iso) });
    }

    function bytes(n) {
        var units = ['B', 'kB', 'MB', 'GB', 'TB'];
        var i = 0;
        while (n >= 1024 && i < units.length - 1) {
            n /= 1024;
            i++;
        }
        return (i ? n.toFixed(1) : n) + ' ' + units[i];
    }

    function short(id) {
        return el('span', { 'class': 'mono', title: id, text: String(id).length > 13 ? String(id).slice(-12) : id });
    }

    // ---- HTTP --------------------------------------------------------------------------------------------------

    function HttpError(status, message) {
        this.status = status;
        this.message = message;
    }

    function api(method, path, body) {
        var options = { method: method, headers: { 'Accept': 'application/json' } };
        if (body !== undefined) {
            options.headers['Content-Type'] = 'application/json';
            options.body = JSON.stringify(body);
        }
        return fetch(path.charAt(0) === '/' ? API + path : path, options).then(function (response) {
            return response.text().then(function (text) {
                var json = null;
                try {
                    json = text ? JSON.parse(text) : null;
                } catch (ignored) {
                    json = null;
                }
                if (!response.ok) {
                    var message = json && json.error && json.error.message ? json.error.message : response.statusText;
                    throw new HttpError(response.status, message);
                }
                return json;
            });
        });
    }

    function get(path) {
        return api('GET', path);
    }

    function post(path, body) {
        return api('POST', path, body === undefined ? {} : body);
    }

    function del(path) {
        return api('DELETE', path);
    }

    function enc(value) {
        return encodeURIComponent(value);
    }

    function showError(error) {
        var banner = document.getElementById('banner');
        var text;
        if (error && error.status === 401) {
            text = 'Not signed in (401): the dashboard needs credentials with the read or admin scope.';
        } else if (error && error.status === 403) {
            text = 'Forbidden (403): ' + error.message
                + ' — the action needs the scope of the route it calls, the pages need read or admin.';
        } else {
            text = 'Request failed' + (error && error.status ? ' (' + error.status + ')' : '') + ': '
                + (error && error.message ? error.message : String(error));
        }
        banner.textContent = text;
        banner.className = 'banner';
    }

    function clearError() {
        document.getElementById('banner').className = 'banner hidden';
    }

    // ---- pages -------------------------------------------------------------------------------------------------

    function queuesPage() {
        return get('/queues?limit=1000').then(function (page) {
            return Promise.all(page.queues.map(function (queue) {
                return Promise.all([
                    get('/queues/' + enc(queue.name) + '/stats').then(function (b) { return b.queue; }, function () { return {}; }),
                    get('/queues/' + enc(queue.name) + '/consumers').then(function (b) { return b.consumers; }, function () { return []; })
                ]).then(function (parts) { return { queue: queue, stats: parts[0], consumers: parts[1] }; });
            })).then(function (rows) {
                return [
                    el('h1', null, 'Queues', el('small', { text: page.pagination.total + ' queue(s)' })),
                    table(['Queue', 'Status', '#Available', '#Active', '#Scheduled', '#Retryable', '#Dead letters',
                            '#Jobs (est.)', '#Stream events (est.)', 'Consumers', ''],
                        rows.map(function (row) {
                            var q = row.queue;
                            var maxLag = row.consumers.reduce(function (m, c) { return Math.max(m, c.lag); }, 0);
                            return el('tr', { 'data-queue': q.name },
                                el('td', null, el('a', { href: '#/queues/' + enc(q.name), text: q.name })),
                                el('td', null, pill(q.paused ? 'paused' : 'active')),
                                num(row.stats.available), num(row.stats.active), num(row.stats.scheduled),
                                num(row.stats.retryable), num(row.stats.dead_letter),
                                num(q.estimated_counts.jobs), num(q.estimated_counts.stream_events),
                                el('td', { 'class': 'consumers' }, row.consumers.length
                                    ? row.consumers.length + ' (max lag ' + maxLag + ')' : '–'),
                                el('td', null, q.paused
                                    ? action('Resume', function () { return post('/queues/' + enc(q.name) + '/resume'); })
                                    : action('Pause', function () { return post('/queues/' + enc(q.name) + '/pause'); })));
                        }), 'No queue yet: enqueue a job or append a message and it appears here.')
                ];
            });
        });
    }

    var LAG_COLOURS = ['#6f42c1', '#d63384', '#0d9488', '#ea580c', '#2563eb', '#65a30d'];

    /** A line chart of named series over the samples: [{name, colour, value: function (sample)}]. */
    function chart(samples, series, unit) {
        if (!samples.length) {
            return el('p', { 'class': 'muted', text: 'No sample yet.' });
        }
        if (!series.length) {
            return el('p', { 'class': 'muted', text: 'Nothing to draw.' });
        }
        var ns = 'http://www.w3.org/2000/svg';
        var width = 800;
        var height = 130;
        var max = 1;
        samples.forEach(function (s) {
            series.forEach(function (line) { max = Math.max(max, line.value(s) || 0); });
        });
        var svg = document.createElementNS(ns, 'svg');
        svg.setAttribute('viewBox', '0 0 ' + width + ' ' + (height + 20));
        svg.setAttribute('class', 'chart');
        svg.setAttribute('preserveAspectRatio', 'none');
        series.forEach(function (line) {
            var points = samples.map(function (s, i) {
                var x = samples.length === 1 ? width : (i / (samples.length - 1)) * width;
                var y = 10 + height - ((line.value(s) || 0) / max) * height;
                return x.toFixed(1) + ',' + y.toFixed(1);
            }).join(' ');
            var polyline = document.createElementNS(ns, 'polyline');
            polyline.setAttribute('points', points);
            polyline.setAttribute('fill', 'none');
            polyline.setAttribute('stroke', line.colour);
            polyline.setAttribute('stroke-width', '2');
            polyline.setAttribute('vector-effect', 'non-scaling-stroke');
            svg.appendChild(polyline);
        });
        var latest = samples[samples.length - 1];
        return el('div', null, svg, el('div', { 'class': 'legend' }, series.map(function (line) {
            var swatch = el('i');
            swatch.style.background = line.colour;
            return el('span', null, swatch, line.name + ' ' + (line.value(latest) || 0));
        }), el('span', { text: 'peak ' + max + ' ' + unit + ', ' + samples.length + ' samples since ' + ago(samples[0].time) })));
    }

    function jobSeries() {
        return JOB_STATES.map(function (state) {
            return { name: state.replace('_', ' '), colour: STATE_COLOURS[state],
                value: function (s) { return s.jobs[state]; } };
        });
    }

    function lagSeries(samples) {
        var names = [];
        samples.forEach(function (s) {
            Object.keys(s.lag).forEach(function (name) {
                if (names.indexOf(name) < 0) {
                    names.push(name);
                }
            });
        });
        return names.map(function (name, i) {
            return { name: name, colour: LAG_COLOURS[i % LAG_COLOURS.length],
                value: function (s) { return s.lag[name] ? s.lag[name].events : 0; } };
        });
    }

    function queuePage(name) {
        var base = '/queues/' + enc(name);
        return Promise.all([
            get('/queues?limit=1000'),
            get(base + '/stats'),
            get(base + '/consumers'),
            get(base + '/info'),
            get(base + '/storage'),
            get(base + '/history')
        ]).then(function (r) {
            var overview = r[0].queues.filter(function (q) { return q.name === name; })[0] || { paused: r[1].queue.paused };
            var stats = r[1].queue;
            var consumers = r[2].consumers;
            var stream = r[3].stream;
            var storage = r[4];
            var history = r[5];
            var cards = ['available', 'active', 'scheduled', 'retryable', 'completed', 'discarded', 'cancelled', 'dead_letter']
                .map(function (state) {
                    return el('div', { 'class': 'card', 'data-state': state }, el('div', { 'class': 'label', text: state.replace('_', ' ') }),
                        el('div', { 'class': 'value', text: ((stats.estimated || []).indexOf(state) >= 0 ? '≈ ' : '')
                            + Number(stats[state] || 0).toLocaleString() }));
                });
            return [
                el('h1', null, el('a', { href: '#/queues', text: 'Queues' }), ' / ' + name, ' ', pill(stats.paused ? 'paused' : 'active'), ' ',
                    stats.paused ? action('Resume', function () { return post(base + '/resume'); })
                        : action('Pause', function () { return post(base + '/pause'); })),
                el('div', { 'class': 'cards' }, cards),
                el('div', { 'class': 'grid' },
                    el('section', { 'class': 'panel', 'data-chart': 'jobs' }, el('h2', null, 'Job states over time',
                        el('small', { text: history.sampling ? 'one sample every ' + history.interval_seconds + ' s, kept by the server'
                            : 'sampling is off (no Micrometer registry or pgvs3.metrics.enabled=false)' })),
                        chart(history.samples, jobSeries(), 'jobs')),
                    el('section', { 'class': 'panel', 'data-chart': 'lag' }, el('h2', null, 'Consumer lag over time',
                        el('small', { text: 'events behind, per consumer' })),
                        chart(history.samples, lagSeries(history.samples), 'events'))),
                el('h2', null, 'Stream consumers', el('small', { text: stream.last_seq + ' events appended, ' + stream.events + ' retained' })),
                table(['Consumer', '#Lag (events)', '#Lag (seconds)', '#Last tick', 'Active batches', 'Subscribed'],
                    consumers.map(function (c) {
                        return el('tr', { 'data-consumer': c.name },
                            el('td', { text: c.name }),
                            el('td', { 'class': 'num lag' + (c.lag > 1000 ? ' lag-high' : ''), text: c.lag }),
                            num(c.lag_seconds), num(c.last_tick),
                            el('td', { 'class': 'batches' }, c.batches.length ? c.batches.map(function (b) {
                                return el('div', { 'class': 'mono', text: 'batch ' + b.id + ': ' + b.count + ' msg, ticks ' + b.start_tick
                                    + '–' + b.end_tick + (b.member ? ', member ' + b.member : '') + ', ' + ago(b.created_at) });
                            }) : '–'),
                            el('td', null, time(c.created_at)));
                    }), 'No consumer subscribed.'),
                el('div', { 'class': 'grid' },
                    el('div', null,
                        el('h2', null, 'Segments and rotation', el('small', { text: 'next rotation ' + ago(stream.next_rotation_at)
                            + ', retention ' + Math.round(stream.retention_seconds / 3600) + ' h' })),
                        table(['Segment', '#Events', 'Started', 'Sealed'], (stream.segments || []).map(function (s) {
                            return el('tr', null, el('td', null, String(s.segment), s.current ? ' (current)' : ''), num(s.events),
                                el('td', null, time(s.started_at)), el('td', null, s.sealed_at ? time(s.sealed_at) : '–'));
                        }), 'No segment.'),
                        el('p', { 'class': 'muted', text: 'Ticks ' + (stream.ticks ? stream.ticks.count : 0) + ', outstanding batches '
                            + stream.outstanding_batches + ', pending retries ' + stream.pending_retries + ', dead letters '
                            + stream.dead_letters + ', metadata compacted ' + ago(stream.metadata_compacted_at) })),
                    el('div', null,
                        el('h2', null, 'Tables', el('small', { text: storage.dead_tuples + ' dead tuples, ' + bytes(storage.total_bytes) })),
                        table(['Table', '#Live', '#Dead', '#Size', 'Last vacuum'], storage.tables.map(function (t) {
                            return el('tr', { 'data-table': t.table }, el('td', { 'class': 'mono', text: t.table }), num(t.live_tuples),
                                num(t.dead_tuples), el('td', { 'class': 'num', text: bytes(t.total_bytes) }),
                                el('td', null, time(t.last_vacuum)));
                        }), 'No table.'))),
                overview.estimated_counts ? el('p', { 'class': 'muted', text: 'Estimated rows: ' + overview.estimated_counts.jobs
                    + ' jobs, ' + overview.estimated_counts.stream_events + ' stream events.' }) : null
            ];
        });
    }

    function jobError(job) {
        var error = job.error || (job.errors && job.errors[job.errors.length - 1]);
        return error ? (error.type ? error.type + ': ' : '') + (error.message || '') : '–';
    }

    function deadLettersPage() {
        return Promise.all([get('/dead-letter?limit=100'), get('/queues?limit=1000')]).then(function (r) {
            var jobs = r[0].jobs;
            return Promise.all(r[1].queues.map(function (q) {
                return get('/queues/' + enc(q.name) + '/dlq?limit=100').then(function (b) {
                    return b.dead_letters.map(function (d) { d.queue = q.name; return d; });
                }, function () { return []; });
            })).then(function (lists) {
                var letters = [].concat.apply([], lists);
                var queuesWithLetters = letters.map(function (d) { return d.queue; })
                    .filter(function (q, i, all) { return all.indexOf(q) === i; });
                return [
                    el('h1', null, 'Dead letters'),
                    el('h2', null, 'Jobs', el('small', { text: jobs.length + (r[0].pagination.has_more ? '+' : '') + ' dead-lettered job(s)' })),
                    jobs.length && !settings.read_only ? el('div', { 'class': 'toolbar' },
                        action('Retry all shown', function () {
                            return Promise.all(jobs.map(function (j) { return post('/dead-letter/' + enc(j.id) + '/retry'); }));
                        }),
                        action('Discard all shown', function () {
                            if (!window.confirm('Discard ' + jobs.length + ' dead-lettered job(s)?')) {
                                return null;
                            }
                            return Promise.all(jobs.map(function (j) { return del('/dead-letter/' + enc(j.id)); }));
                        }, true)) : null,
                    table(['Job', 'Queue', 'Type', 'Error', '#Attempts', 'Failed', ''], jobs.map(function (job) {
                        var key = 'job:' + job.id;
                        return el('tr', { 'data-job': job.id },
                            el('td', null, short(job.id)), el('td', { text: job.queue }), el('td', { 'class': 'mono', text: job.type }),
                            el('td', null, jobError(job), detail(key, { args: job.args, meta: job.meta, error: job.error, errors: job.errors })),
                            num(job.attempt), el('td', null, time(job.completed_at || job.updated_at || job.enqueued_at)),
                            el('td', null, toggle(key),
                                action('Retry', function () { return post('/dead-letter/' + enc(job.id) + '/retry'); }),
                                action('Discard', function () { return del('/dead-letter/' + enc(job.id)); }, true)));
                    }), 'No dead-lettered job.'),
                    el('h2', null, 'Stream messages', el('small', { text: letters.length + ' dead letter(s)' })),
                    queuesWithLetters.length && !settings.read_only ? el('div', { 'class': 'toolbar' }, queuesWithLetters.map(function (q) {
                        return [
                            action('Replay all of ' + q, function () { return post('/queues/' + enc(q) + '/dlq/replay'); }),
                            action('Purge all of ' + q, function () {
                                if (!window.confirm('Delete every dead letter of queue ' + q + '?')) {
                                    return null;
                                }
                                return del('/queues/' + enc(q) + '/dlq?older_than=0s');
                            }, true)
                        ];
                    })) : null,
                    table(['Queue', '#Id', 'Message', 'Type', 'Reason', 'Consumer', '#Retries', 'Dead since', ''],
                        letters.map(function (d) {
                            var key = 'dlq:' + d.queue + ':' + d.id;
                            return el('tr', { 'data-dead-letter': d.queue + ':' + d.id },
                                el('td', { text: d.queue }), num(d.id), el('td', null, short(d.message_id)),
                                el('td', { 'class': 'mono', text: d.type }),
                                el('td', null, d.reason || '–', detail(key, { payload: d.payload, headers: d.headers })),
                                el('td', { text: d.consumer || '–' }), num(d.retry_count), el('td', null, time(d.dead_at)),
                                el('td', null, toggle(key), action('Replay', function () {
                                    return post('/queues/' + enc(d.queue) + '/dlq/' + enc(d.id) + '/replay');
                                })));
                        }), 'No dead-lettered stream message.')
                ];
            });
        });
    }

    function cronPage() {
        return get('/cron').then(function (body) {
            var crons = body.crons;
            return [
                el('h1', null, 'Cron', el('small', { text: crons.length + ' schedule(s)' })),
                table(['Name', 'Schedule', 'Queue', 'Job type', 'State', 'Next run', 'Last run', 'Last job', ''],
                    crons.map(function (c) {
                        return el('tr', { 'data-cron': c.name },
                            el('td', { text: c.name }),
                            el('td', { 'class': 'mono', text: c.expression + ' (' + c.timezone + ')' }),
                            el('td', { text: c.queue }),
                            el('td', { 'class': 'mono', text: c.job_template && c.job_template.type }),
                            el('td', null, pill(c.enabled ? 'enabled' : 'disabled')),
                            el('td', null, c.enabled ? time(c.next_run_at) : '–'),
                            el('td', null, time(c.last_run_at)),
                            el('td', null, c.last_job_id ? short(c.last_job_id) : '–'),
                            el('td', null, c.enabled
                                ? action('Disable', function () { return post('/cron/' + enc(c.name) + '/disable'); })
                                : action('Enable', function () { return post('/cron/' + enc(c.name) + '/enable'); })));
                    }), 'No cron registered.')
            ];
        });
    }

    function workflowsPage() {
        return get('/workflows?limit=50').then(function (body) {
            var workflows = body.workflows;
            return [
                el('h1', null, 'Workflows', el('small', { text: body.pagination.total + ' workflow(s), newest first' })),
                workflows.length ? workflows.map(function (w) {
                    var steps = w.jobs || [];
                    var done = steps.filter(function (s) { return s.state === 'completed'; }).length;
                    return el('section', { 'class': 'panel', 'data-workflow': w.id },
                        el('h2', { style: 'margin-top:0' }, (w.name || w.type) + ' ', pill(w.state),
                            el('small', { text: w.type + ', ' + done + '/' + steps.length + ' steps completed, created '
                                + ago(w.created_at) + ' — ' + w.id }),
                            ' ', w.state === 'running' ? action('Cancel', function () { return del('/workflows/' + enc(w.id)); }, true) : null),
                        table(['#Step', 'Type', 'Queue', 'State', 'Depends on', 'Job'], steps.map(function (s) {
                            return el('tr', null, num(s.index), el('td', { 'class': 'mono', text: s.type }), el('td', { text: s.queue }),
                                el('td', null, pill(s.state)), el('td', { text: (s.depends_on || []).join(', ') || '–' }),
                                el('td', null, short(s.job_id)));
                        }), 'No step.'));
                }) : el('p', { 'class': 'muted', text: 'No workflow yet.' })
            ];
        });
    }

    var events = { after: 0, list: [], paused: false };

    function eventsPage() {
        var read = events.paused ? Promise.resolve({ events: [] })
            : get('/events?limit=500&after=' + events.after);
        return read.then(function (body) {
            body.events.forEach(function (e) {
                events.list.unshift(e);
                events.after = Math.max(events.after, Number(e.id));
            });
            events.list = events.list.slice(0, 300);
            return [
                el('h1', null, 'Live events', el('small', { text: 'job lifecycle events, newest first' })),
                el('div', { 'class': 'toolbar' }, el('button', { 'data-action': 'pause-feed', text: events.paused ? 'Resume feed' : 'Pause feed',
                    onclick: function () { events.paused = !events.paused; refresh(); } })),
                table(['#Id', 'Time', 'Event', 'Queue', 'Job', 'Data'], events.list.map(function (e) {
                    return el('tr', { 'data-event': e.id }, num(e.id), el('td', { 'class': 'nowrap' }, time(e.time)),
                        el('td', { 'class': 'mono nowrap', text: e.type }), el('td', { 'class': 'nowrap', text: e.source.replace('/ojs/queues/', '') }),
                        el('td', null, short(e.subject)), el('td', { 'class': 'mono', text: JSON.stringify(e.data) }));
                }), 'No event yet.')
            ];
        });
    }

    // ---- routing and refresh ------------------------------------------------------------------------------------

    function route() {
        var hash = location.hash.replace(/^#\/?/, '');
        var parts = hash.split('/');
        if (parts[0] === 'queues' && parts[1]) {
            return { nav: 'queues', render: function () { return queuePage(decodeURIComponent(parts[1])); } };
        }
        var pages = { 'dead-letters': deadLettersPage, cron: cronPage, workflows: workflowsPage, events: eventsPage };
        if (pages[parts[0]]) {
            return { nav: parts[0], render: pages[parts[0]] };
        }
        return { nav: 'queues', render: queuesPage };
    }

    function refresh() {
        if (busy) {
            return;
        }
        busy = true;
        var page = current;
        page.render().then(function (nodes) {
            if (page !== current) {
                return;
            }
            view.replaceChildren();
            append(view, nodes);
            view.setAttribute('data-loaded', new Date().toISOString());
            document.getElementById('status').textContent = 'updated ' + new Date().toLocaleTimeString();
            clearError();
        }, showError).then(function () { busy = false; }, function () { busy = false; });
    }

    function navigate() {
        current = route();
        expanded = {};
        document.querySelectorAll('[data-nav]').forEach(function (link) {
            link.classList.toggle('active', link.getAttribute('data-nav') === current.nav);
        });
        view.replaceChildren(el('p', { 'class': 'muted', text: 'Loading…' }));
        busy = false;
        refresh();
    }

    function start() {
        get('../dashboard/settings').then(function (loaded) {
            settings = loaded;
        }, showError).then(function () {
            document.getElementById('mode').classList.toggle('hidden', !settings.read_only);
            var link = document.getElementById('api-link');
            var target = settings.api_ui || settings.api_docs;
            if (target) {
                link.href = '..' + target;
            } else {
                link.classList.add('hidden');
            }
            window.addEventListener('hashchange', navigate);
            navigate();
            timer = setInterval(refresh, REFRESH_MS);
        });
    }

    start();
}());
