import type { FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { ScanNotice } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { WriteQueue } from '../db/write-queue.js';
import { metricsDocs } from './status.docs.js';
import { AppError } from '../http/errors.js';
import type { BoxStatus, SyncStatus } from './box-status.js';
import { handheldMetrics } from './handheld.metrics.js';
import { siteMetrics } from './site.metrics.js';
import type { SiteInfo } from '../site/site.answers.js';

// GET /metrics in Prometheus' text format (docs/operations.md): scans by door and result and their
// latency, the event loop and the process (prom-client's defaults), lanes and devices, the sync, the site.
// One registry per box, never prom-client's global one.

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function createMetrics({
  db,
  clock,
  status,
  site,
  handhelds = false,
}: {
  db: Db;
  clock: Clock;
  status?: BoxStatus | undefined;
  /** GATE_HANDHELD: the handhelds' gauges (none without). */
  handhelds?: boolean;
  /** The site link: its claim times (the view itself is read through `status`). */
  site?: SiteInfo | undefined;
}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gate_' });
  // Gauges named like counters, which `promtool check metrics` refuses: their sums by type stay
  // (gate_nodejs_active_handles{type}, …_requests, …_resources).
  for (const name of ['handles', 'requests', 'resources'])
    registry.removeSingleMetric(`gate_nodejs_active_${name}_total`);
  const scans = new Counter({
    name: 'gate_scans_total',
    help: 'Check-ins, reversals and movements by door and result (ok or the error code)',
    labelNames: ['porta', 'acao', 'resultado'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'gate_scan_duration_seconds',
    help: 'From the door calling the check-in service to the durable commit',
    labelNames: ['porta', 'acao'],
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const grants = new Histogram({
    name: 'gate_lane_grant_seconds',
    help: 'From a lane reading a code to its relay taking the grant',
    labelNames: ['pista'],
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2],
    registers: [registry],
  });
  // One sync status per scrape, whichever gauge asks first.
  let scraped: SyncStatus | null = null;
  if (status) statusMetrics(registry, status, clock, () => (scraped ??= status.sync()!));
  writeQueueMetrics(registry, db.writes);
  const siteSeries = site && status ? siteMetrics(registry, status, site) : undefined;
  const handheldSeries = handhelds ? handheldMetrics(registry, db, clock) : undefined;
  return {
    /** Stops draining the site's claim times (the box's closing). */
    stop: () => siteSeries?.stop(),
    /** The text of one scrape. */
    async scrape(): Promise<string> {
      scraped = null;
      siteSeries?.fresh();
      handheldSeries?.reset();
      return registry.metrics();
    },
    contentType: registry.contentType,
    /** The lanes' listener: a grant the relay took. */
    observeGrant(lane: string, seconds: number) {
      grants.observe({ pista: lane }, seconds);
    },
    /** The check-in service's listener. */
    observe(n: ScanNotice) {
      scans.inc({ porta: n.source, acao: n.action, resultado: n.result.ok ? 'ok' : n.result.code });
      latency.observe({ porta: n.source, acao: n.action }, n.ms / 1000);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** What the box's status says (src/status/box-status.ts): each lane device, the clock, the sync. */
function statusMetrics(registry: Registry, status: BoxStatus, clock: Clock, sync: () => SyncStatus) {
  new Gauge({
    name: 'gate_device_up',
    help: 'Each lane device: 1 online, 0 offline',
    labelNames: ['pista', 'dispositivo', 'porta'],
    registers: [registry],
    collect() {
      this.reset();
      for (const l of status.lanes()?.lanes ?? []) {
        this.set({ pista: l.name, dispositivo: 'rele', porta: l.relay.path }, l.relay.online ? 1 : 0);
        for (const s of l.scanners) this.set({ pista: l.name, dispositivo: 'leitor', porta: s.path }, s.up ? 1 : 0);
      }
    },
  });
  if (status.clock()) {
    new Gauge({
      name: 'gate_clock_suspect',
      help: '1 while the box clock is suspect (behind the newest event, or away from the cloud)',
      registers: [registry],
      collect() {
        this.set(status.clock()?.suspeito ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gate_clock_cloud_skew_seconds',
      help: 'Box clock minus the cloud clock (Date header), the least the last reading allows; NaN before one',
      registers: [registry],
      collect() {
        this.set(status.clock()?.diferenca_nuvem_segundos ?? NaN);
      },
    });
  }
  if (status.syncTenantId === undefined) return;
  const age = (iso: string | null) => (iso ? (clock.now().getTime() - Date.parse(iso)) / 1000 : -1);
  const gauge = (name: string, help: string, value: (s: SyncStatus) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value(sync()));
      },
    });
  gauge('gate_sync_online', '1 when the cloud answered the last call', (s) => (s.online ? 1 : 0));
  gauge('gate_sync_last_pull_age_seconds', 'Seconds since the last good pull (-1: never)', (s) => age(s.lastPullAt));
  gauge('gate_sync_last_push_age_seconds', 'Seconds since the last good push (-1: never)', (s) => age(s.lastPushAt));
  gauge('gate_sync_events_waiting', 'Events not yet accepted by the cloud', (s) => s.waiting);
  new Gauge({
    name: 'gate_sync_conflicts',
    help: "Events the cloud did not accept, and the site's duplo_no_site, by kind",
    labelNames: ['tipo'],
    registers: [registry],
    collect() {
      for (const [kind, n] of Object.entries(sync().conflicts)) this.set({ tipo: kind }, n);
    },
  });
}

/** The group commit (src/db/write-queue.ts): units waiting, and per commit its units, its time and its fsync's. */
function writeQueueMetrics(registry: Registry, writes: WriteQueue) {
  const FILA = { foreground: 'principal', background: 'fundo' } as const;
  const seconds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
  new Gauge({
    name: 'gate_write_queue_depth',
    help: 'Units of work waiting for a commit, by priority (principal: scans and other writes; fundo: sync pages, batch slices)',
    labelNames: ['fila'],
    registers: [registry],
    collect() {
      const { waiting } = writes.stats();
      this.set({ fila: FILA.foreground }, waiting.foreground);
      this.set({ fila: FILA.background }, waiting.background);
    },
  });
  const commit = new Histogram({
    name: 'gate_write_commit_seconds',
    help: 'One group commit: BEGIN IMMEDIATE, its units, COMMIT (without the fsync)',
    labelNames: ['fila'],
    buckets: seconds,
    registers: [registry],
  });
  const fsync = new Histogram({
    name: 'gate_write_fsync_seconds',
    help: 'The WAL fsync after a commit, which its units wait for',
    labelNames: ['fila'],
    buckets: seconds,
    registers: [registry],
  });
  const units = new Histogram({
    name: 'gate_write_commit_units',
    help: 'Units of work in one commit',
    labelNames: ['fila'],
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 512],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'gate_write_commit_failures_total',
    help: 'Commits none of whose units was acknowledged, by stage (commit: the transaction; fsync: the disk)',
    labelNames: ['fila', 'etapa'],
    registers: [registry],
  });
  // Children made once: an observation per commit does not hash labels.
  const per = <T>(make: (fila: string) => T) => ({
    foreground: make(FILA.foreground),
    background: make(FILA.background),
  });
  const commitOf = per((fila) => commit.labels(fila));
  const fsyncOf = per((fila) => fsync.labels(fila));
  const unitsOf = per((fila) => units.labels(fila));
  // Every series from the first scrape, so that rate() and alerts have a start.
  for (const fila of Object.values(FILA)) {
    for (const h of [commit, fsync, units]) h.zero({ fila });
    for (const etapa of ['commit', 'fsync']) failures.inc({ fila, etapa }, 0);
  }
  writes.observe({
    committed(priority, n, ms) {
      unitsOf[priority].observe(n);
      commitOf[priority].observe(ms / 1000);
    },
    synced: (priority, ms) => fsyncOf[priority].observe(ms / 1000),
    failed: (priority, etapa) => failures.inc({ fila: FILA[priority], etapa }),
  });
}

/**
 * Open to the box itself (a local agent) and to a key with `local:read`, sent as X-API-Key or as
 * `Authorization: Bearer` (what Prometheus' scrape config sends).
 */
export const metricsRoutes =
  ({ metrics, auth }: { metrics: Metrics; auth: Auth }): RouteRegistrar =>
  (app) => {
    const allowed = async (request: FastifyRequest) => {
      if (LOOPBACK.has(request.socket.remoteAddress ?? '')) return;
      const bearer = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
      if (bearer && !request.headers['x-api-key']) request.headers['x-api-key'] = bearer;
      auth.apiKey(request, ['local:read']);
    };
    app.get(
      '/metrics',
      {
        onRequest: allowed,
        schema: {
          tags: ['box'],
          summary: 'Métricas no formato do Prometheus (local:read, ou da própria caixa)',
          security: [{}, { apiKey: [] }, { bearerKey: [] }],
          docs: metricsDocs,
        },
      },
      async (_request, reply) => {
        try {
          return reply.type(metrics.contentType).send(await metrics.scrape());
        } catch {
          throw new AppError('SERVICE_UNAVAILABLE', undefined, 'Métricas indisponíveis no momento.');
        }
      },
    );
  };
