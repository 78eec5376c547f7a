import net from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { startFakeCloud } from '../support/fake-cloud.js';
import { siteTickets, SITE_TZ, startBoxes, until, type SiteBoxes } from '../support/site-boxes.js';
import { cloudEnv } from '../support/site-cloud.js';
import { startHub, type Hub } from '../support/site-hub.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// The site tests' harness (test/support/site-*.ts, tcp-proxy.ts) checked against the real parts: Debian's
// nats-server as the hub, a box's NATS client through the TCP proxy the test cuts and heals, and boxes as real
// `gate serve` processes sharing one set of tickets.

let hub: Hub;
let proxy: TcpProxy;
const clients: NatsConnection[] = [];

beforeAll(async () => {
  hub = await startHub({ boxes: ['norte', 'sul'] });
  proxy = await startTcpProxy({ host: '127.0.0.1', port: hub.port });
  const nc = await hub.connect('sul', { reconnect: false });
  await (await jetstreamManager(nc)).streams.add({ name: 'HARNESS', subjects: ['harness.>'] });
  await nc.close();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await proxy?.close();
  await hub?.close();
});

/** Every status event of a connection, as they come. */
function statuses(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) seen.push(s.type);
  })();
  return seen;
}

/** A client as box `norte` through the proxy, reconnecting quickly; pings as given. */
async function throughProxy(extra: { pingInterval?: number; maxPingOut?: number } = {}) {
  const nc = await hub.connect('norte', {
    servers: proxy.url,
    reconnectTimeWait: 100,
    maxReconnectAttempts: -1,
    timeout: 1000,
    ...extra,
  });
  clients.push(nc);
  return nc;
}

/** Connections the hub itself holds now (its monitoring endpoint). */
const hubConnections = async () => (await hub.monitor('connz')).num_connections as number;

const roundTrip = async (nc: NatsConnection, subject: string, text: string) => {
  const ack = await jetstream(nc).publish(subject, text);
  const stored = await (await jetstreamManager(nc)).streams.getMessage('HARNESS', { seq: ack.seq });
  return stored?.string();
};

describe('hub and proxy', () => {
  it('lets a box user publish and read with JetStream through the proxy; another box sees it on the hub', async () => {
    const nc = await throughProxy();
    expect(proxy.connections()).toBe(1);
    expect(await roundTrip(nc, 'harness.a', 'primeira')).toBe('primeira');
    const direct = await hub.connect('sul', { reconnect: false });
    const last = await (await jetstreamManager(direct)).streams.getMessage('HARNESS', { last_by_subj: 'harness.a' });
    expect(last?.string()).toBe('primeira');
    await direct.close();
    await nc.close();
    await until('the proxy forgets a closed connection', () => proxy.connections() === 0);
  });

  it('reset: the client sees its connection drop at once, new ones are refused; pass: it reconnects', async () => {
    const nc = await throughProxy();
    const seen = statuses(nc);
    proxy.mode('reset');
    await until('the client sees the reset', () => seen.includes('disconnect'));
    expect(proxy.connections()).toBe(0);
    await until('the hub lost the connection too', async () => (await hubConnections()) === 0);
    await expect(hub.connect('norte', { servers: proxy.url, reconnect: false })).rejects.toThrow();
    proxy.mode('pass');
    await until('the client reconnects', () => seen.includes('reconnect'));
    expect(await roundTrip(nc, 'harness.b', 'depois do reset')).toBe('depois do reset');
    await nc.close();
  });

  it('blackhole: a client pinging every 500 ms notices the silent loss; the hub does not; pass: it reconnects', async () => {
    const nc = await throughProxy({ pingInterval: 500, maxPingOut: 2 });
    const seen = statuses(nc);
    expect(await roundTrip(nc, 'harness.c', 'antes')).toBe('antes');
    proxy.mode('blackhole');
    // Nothing crosses: a publish gets no answer.
    await expect(jetstream(nc).publish('harness.c', 'perdida', { timeout: 300 })).rejects.toThrow();
    await until('the client notices the silent loss', () => seen.includes('disconnect'));
    expect(seen).toContain('staleConnection');
    // No FIN or RST reached the hub: it still holds the box's connection.
    expect(await hubConnections()).toBeGreaterThanOrEqual(1);
    // A new connection is accepted and then hears nothing.
    await expect(hub.connect('norte', { servers: proxy.url, reconnect: false, timeout: 500 })).rejects.toThrow();
    proxy.mode('pass');
    await until('the client reconnects', () => seen.includes('reconnect'));
    expect(await roundTrip(nc, 'harness.c', 'depois')).toBe('depois');
    // What crossed the link reached the hub once; what the blackhole ate never did.
    expect((await hub.read('HARNESS')).map((m) => m.data)).toEqual(['primeira', 'depois do reset', 'antes', 'depois']);
    // The blackholed connection was reset on the way back: the hub holds the new one only.
    await until('the hub dropped the old connection', async () => (await hubConnections()) === 1);
    await nc.close();
  });

  it('keeps its store across a restart, and loses it when wiped', async () => {
    const nc = await hub.connect('sul', { reconnect: false });
    await jetstream(nc).publish('harness.d', 'guardada');
    await nc.close();
    await hub.stop();
    expect(hub.running()).toBe(false);
    await hub.restart();
    const again = await hub.connect('sul', { reconnect: false });
    const kept = await (await jetstreamManager(again)).streams.getMessage('HARNESS', { last_by_subj: 'harness.d' });
    expect(kept?.string()).toBe('guardada');
    await again.close();

    await hub.kill();
    hub.wipeStore();
    await hub.restart();
    const empty = await hub.connect('sul', { reconnect: false });
    await expect((await jetstreamManager(empty)).streams.info('HARNESS')).rejects.toThrow(/stream not found/i);
    await empty.close();
  });
});

describe('a delaying proxy', () => {
  it('delay: every byte crosses both ways, in order, and none sooner than the delay; pass: no longer held', async () => {
    // The proxy's close resets the connection: the echo's socket sees ECONNRESET.
    const echo = net.createServer((s) => s.on('error', () => undefined).pipe(s));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const slow = await startTcpProxy({ host: '127.0.0.1', port: (echo.address() as net.AddressInfo).port });
    try {
      slow.mode('delay', { ms: 150, jitterMs: 100 });
      const socket = net.connect({ host: '127.0.0.1', port: slow.port, noDelay: true });
      let received = '';
      let firstAt = 0;
      socket.on('data', (c: Buffer) => {
        firstAt ||= Date.now();
        received += c.toString();
      });
      await new Promise((resolve) => socket.once('connect', resolve));
      const sent = Array.from({ length: 60 }, (_, i) => `<${i}>`);
      const start = Date.now();
      for (const piece of sent) {
        socket.write(piece);
        // One chunk per write: each draws its own delay (150-250 ms): later ones would overtake if the order slipped.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await until('the echo of every piece', () => received.length === sent.join('').length, 10_000);
      expect(received).toBe(sent.join(''));
      // Delayed on the way there and on the way back.
      expect(firstAt - start).toBeGreaterThanOrEqual(300);
      expect(slow.connections()).toBe(1);

      slow.mode('pass');
      socket.write('<fim>');
      await until('the echo after pass', () => received.endsWith('<fim>'), 10_000);
      socket.destroy();
    } finally {
      await slow.close();
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});

describe('boxes on the site', () => {
  let site: SiteBoxes;
  beforeAll(async () => {
    // sul's link is blackholed from the start: a box never waits for the hub.
    site = await startBoxes({
      names: ['norte', 'sul'],
      hub,
      lanes: true,
      orders: 4,
      people: 2,
      linkAtStart: { sul: 'blackhole' },
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('start whatever their link does, answer on the same tickets with their own keys, and meet once it heals', async () => {
    const [norte, sul] = [site.box('norte'), site.box('sul')];
    expect(norte.env.GATE_SITE_NATS_URLS).toBe(norte.proxy!.url);
    expect(sul.env.GATE_SITE_NATS_URLS).toBe(sul.proxy!.url);
    expect(norte.apiKey).not.toBe(sul.apiKey);
    await norte.untilMode('site');
    expect(await sul.mode()).toBe('local');
    // The same ticket at both: sul decides alone at once, norte has not heard of it.
    const qr = site.tickets.fresh();
    expect((await sul.checkin(qr)).status).toBe(200);
    expect((await norte.checkin(qr)).status).toBe(200);
    expect((await norte.checkin(qr, 'catraca-2')).body.error.code).toBe('TICKET_ALREADY_USED');
    expect(await sul.siteView()).toMatchObject({ modo: 'local', decisoes_sem_site_hoje: 1, pendentes: 1 });
    // A key belongs to its own box.
    expect((await sul.get('/api/local/eventos')).status).toBe(200);
    const foreign = await fetch(`${sul.url}/api/local/eventos`, { headers: { 'x-api-key': norte.apiKey } });
    expect(foreign.status).toBe(401);

    // Healed: sul publishes what it decided alone, and norte applies it.
    sul.proxy!.mode('pass');
    await sul.untilMode('site');
    await until('norte has sul’s check-in', async () => {
      const { body } = await norte.get('/api/local/eventos?limit=100');
      return body.data.eventos.some(
        (e: { qr_code: string; terminal: string }) => e.qr_code === qr && e.terminal === 'catraca-sul',
      );
    });
    await until('the double entry is a site conflict at both', async () => {
      const views = await Promise.all([norte.siteView(), sul.siteView()]);
      return views.every((v) => v.conflitos === 1);
    });
    const raced = await site.race(site.tickets.fresh());
    expect(raced.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await sul.checkin(site.tickets.freshOrder().numero)).status).toBe(200);

    // The lanes: a scan at norte opens its door; the same QR at sul is refused.
    const scanned = site.tickets.fresh();
    await norte.lane!.scan(scanned);
    await until('the north lane opens', () => norte.lane!.grants() === 1);
    await sul.lane!.scan(scanned);
    await until('the south lane refuses', async () => (await sul.lane!.counters()).negadas === 1);
    expect(sul.lane!.grants()).toBe(0);
  });

  it('a box killed with SIGKILL starts again with its data; a stopped one exits cleanly', async () => {
    const norte = site.box('norte');
    const qr = site.tickets.fresh();
    expect((await norte.checkin(qr)).status).toBe(200);
    await norte.kill();
    expect(norte.running()).toBe(false);
    await expect(norte.checkin(qr)).rejects.toThrow();
    await norte.start();
    const after = await norte.checkin(qr);
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('TICKET_ALREADY_USED');
    expect(norte.logs().match(/gate appliance listening/g)).toHaveLength(2);
    await norte.untilMode('site');
    // Its lane's devices outlived it: the restarted box opens them again.
    const opened = norte.lane!.grants();
    await norte.lane!.scan(site.tickets.fresh());
    await until('the lane opens after the restart', () => norte.lane!.grants() === opened + 1);
    expect(await norte.stop()).toBe(0);
    await norte.start();
    expect((await norte.get('/api/local/eventos')).status).toBe(200);
  });
});

describe('a box with the fake cloud', () => {
  it('pushes its check-in to the cloud with its own cloud key', async () => {
    const cloud = await startFakeCloud({ clock: createClock(SITE_TZ), recordRequests: false });
    const dataset = siteTickets({ orders: 1, people: 2 });
    cloud.addOrders(dataset.pedidos);
    const site = await startBoxes({ names: ['leste'], dataset, env: (name) => cloudEnv(cloud, name) });
    try {
      const qr = dataset.tickets.fresh();
      expect((await site.box('leste').checkin(qr)).status).toBe(200);
      await until('the cloud applies it', () => cloud.applied().some((r) => r.qr_code === qr));
      expect(cloud.applied()).toEqual([
        expect.objectContaining({ action: 'checkin', qr_code: qr, key_name: 'caixa-leste' }),
      ]);
    } finally {
      await site.close();
      await cloud.close();
    }
  });
});
