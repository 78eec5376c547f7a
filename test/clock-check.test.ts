import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';
import { createClockCheck } from '../src/clock-check.js';
import { createFixedClock } from '../src/clock.js';
import { bootBox, createTestBox, tempDir, TZ, type TestBox } from './support/box.js';
import { makeOrder } from './support/fixtures.js';
import { ensureBuilt, serveGate } from './support/gate-process.js';
import { checkin } from './support/http.js';

// A wrong clock (issue 13): behind the newest recorded event at start, or away from the cloud's Date
// header. The box keeps working, says so on /health/ready, and marks the events written meanwhile.

const T = '2026-11-21T13:00:00.000Z';
let box: TestBox;
let restarted: { close(): Promise<unknown> } | undefined;
afterEach(async () => {
  await restarted?.close();
  restarted = undefined;
  await box?.close();
});

/** The same database started again by a box whose clock reads `at` (a restart after a power cut). */
async function restartAt(at: string) {
  await box.app.close();
  const clock = createFixedClock(TZ, at);
  const started = await bootBox({ db: box.db, clock, logger: false });
  restarted = started;
  const ask = async (method: 'GET' | 'POST', url: string, key: string, payload?: object) => {
    const res = await started.app.inject({
      method,
      url,
      headers: { 'x-api-key': key },
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  return { clock, clockCheck: started.clockCheck, ask };
}

const marks = () => box.db.sqlite.prepare('select code, result, relogio_suspeito from events order by id').all();

describe('the clock against the newest recorded event', () => {
  it('a box that starts before its newest event is flagged, keeps checking in, and marks what it writes until the clock passes that event', async () => {
    box = await createTestBox({ now: T });
    box.importOrders([
      makeOrder({ prefix: 'OPEN', tipo: 'dayuse_sem_data', people: 3 }),
      makeOrder({ prefix: 'DAY', dataUso: '2026-11-21' }),
    ]);
    expect((await checkin(box, { qr_code: 'OPEN-1' })).status).toBe(200);

    // The power came back without network: the board's clock says the day before.
    const { clock, clockCheck, ask } = await restartAt('2026-11-20T13:00:00.000Z');
    expect(clockCheck.state()).toMatchObject({
      suspeito: true,
      motivo: 'atrasado_em_relacao_ao_ultimo_evento',
      agora: '2026-11-20T13:00:00.000Z',
      ultimo_evento_em: T,
    });
    const ready = await ask('GET', '/health/ready', box.keys.all);
    expect(ready.status).toBe(200);
    expect(ready.body.data.partes.relogio).toEqual({
      ok: false,
      motivo: 'atrasado_em_relacao_ao_ultimo_evento',
      agora: '2026-11-20T13:00:00.000Z',
      ultimo_evento_em: T,
      mensagem: `relógio da caixa (2026-11-20T13:00:00.000Z) está antes do último evento registrado (${T}): acerte a hora (NTP ou RTC)`,
    });
    expect(ready.body.data.avisos).toEqual([`relogio: ${ready.body.data.partes.relogio.mensagem}`]);

    // Scans go on; what the wrong "today" decides is recorded with the mark.
    expect((await ask('POST', '/api/v1/api-qrcode-checkin', box.keys.checkin, { qr_code: 'OPEN-2' })).status).toBe(200);
    expect(
      (await ask('POST', '/api/v1/api-qrcode-checkin', box.keys.checkin, { qr_code: 'DAY-1' })).body.error.code,
    ).toBe('TICKET_NOT_VALID_YET');
    const listed = await ask('GET', '/api/local/eventos?marcar_sincronizado=false', box.keys.all);
    expect(
      listed.body.data.eventos.map((e: { codigo: string; relogio_suspeito: string | null }) => [
        e.codigo,
        e.relogio_suspeito,
      ]),
    ).toEqual([
      ['OPEN-1', null],
      ['OPEN-2', 'atrasado_em_relacao_ao_ultimo_evento'],
      ['DAY-1', 'atrasado_em_relacao_ao_ultimo_evento'],
    ]);

    // Someone sets the clock: once it is past the newest event, nothing is suspect any more.
    clock.set('2026-11-21T13:05:00.000Z');
    expect(clockCheck.state()).toMatchObject({ suspeito: false, motivo: null, ultimo_evento_em: null });
    expect((await ask('GET', '/health/ready', box.keys.all)).body.data).not.toHaveProperty('avisos');
    expect((await ask('POST', '/api/v1/api-qrcode-checkin', box.keys.checkin, { qr_code: 'OPEN-3' })).status).toBe(200);
    expect(marks()).toEqual([
      { code: 'OPEN-1', result: 'ok', relogio_suspeito: null },
      { code: 'OPEN-2', result: 'ok', relogio_suspeito: 'atrasado_em_relacao_ao_ultimo_evento' },
      { code: 'DAY-1', result: 'TICKET_NOT_VALID_YET', relogio_suspeito: 'atrasado_em_relacao_ao_ultimo_evento' },
      { code: 'OPEN-3', result: 'ok', relogio_suspeito: null },
    ]);
  });

  it('a clock that is right, or behind by less than the tolerance, is not flagged', async () => {
    box = await createTestBox({ now: T });
    box.importOrders([makeOrder({ prefix: 'OK', tipo: 'dayuse_sem_data', people: 2 })]);
    expect((await checkin(box, { qr_code: 'OK-1' })).status).toBe(200);
    const slightly = await restartAt('2026-11-21T12:59:30.000Z');
    expect(slightly.clockCheck.state().suspeito).toBe(false);
    await restarted!.close();
    const { clockCheck, ask } = await restartAt('2026-11-22T09:00:00.000Z');
    expect(clockCheck.state()).toEqual({
      suspeito: false,
      motivo: null,
      agora: '2026-11-22T09:00:00.000Z',
      ultimo_evento_em: null,
      diferenca_nuvem_segundos: null,
      nuvem_lida_em: null,
    });
    expect((await ask('GET', '/health/ready', box.keys.all)).body.data.partes.relogio).toEqual({ ok: true });
    expect((await ask('POST', '/api/v1/api-qrcode-checkin', box.keys.checkin, { qr_code: 'OK-2' })).status).toBe(200);
    expect(marks().map((m) => (m as { relogio_suspeito: string | null }).relogio_suspeito)).toEqual([null, null]);
  });

  it('a lane event newer than every check-in counts too', async () => {
    box = await createTestBox({ now: T });
    box.db.sqlite
      .prepare(
        "insert into lane_events (tenant_id, occurred_at, lane, kind) values (?, '2026-11-21T15:00:00.000Z', 'entrada-1', 'carona')",
      )
      .run(box.tenantId);
    const { clockCheck } = await restartAt('2026-11-21T14:00:00.000Z');
    expect(clockCheck.state()).toMatchObject({ suspeito: true, ultimo_evento_em: '2026-11-21T15:00:00.000Z' });
  });
});

describe("the clock against the cloud's Date header", () => {
  async function check(now = T) {
    box = await createTestBox({ now });
    let mono = 1_000_000;
    const clockCheck = createClockCheck({ db: box.db, clock: box.clock, monotonic: () => mono });
    return { clockCheck, tick: (ms: number) => (mono += ms) };
  }

  it('flags a skew beyond two minutes with its size in seconds, and clears on a later good reading', async () => {
    const { clockCheck } = await check();
    // The cloud says 13:10:00 while the box says 13:00: the box is ten minutes behind.
    clockCheck.cloudDate('Sat, 21 Nov 2026 13:10:00 GMT', 40);
    expect(clockCheck.state()).toMatchObject({
      suspeito: true,
      motivo: 'diferenca_da_nuvem',
      diferenca_nuvem_segundos: -600,
      nuvem_lida_em: T,
    });
    expect(clockCheck.eventMark(box.clock.now())).toBe('diferenca_da_nuvem');
    // Ahead by three minutes: the header has whole seconds, so the box is at least 179 s ahead.
    clockCheck.cloudDate('Sat, 21 Nov 2026 12:57:00 GMT', 0);
    expect(clockCheck.state()).toMatchObject({ suspeito: true, diferenca_nuvem_segundos: 179 });
    clockCheck.cloudDate('Sat, 21 Nov 2026 13:00:00 GMT', 30);
    expect(clockCheck.state()).toMatchObject({ suspeito: false, motivo: null, diferenca_nuvem_segundos: 0 });
    expect(clockCheck.eventMark(box.clock.now())).toBeNull();
    // Within two minutes is fine.
    clockCheck.cloudDate('Sat, 21 Nov 2026 12:58:30 GMT', 0);
    expect(clockCheck.state()).toMatchObject({ suspeito: false, diferenca_nuvem_segundos: 89 });
    // No header, or one that is not a date: the last reading stands.
    clockCheck.cloudDate(undefined, 0);
    clockCheck.cloudDate('ontem', 0);
    expect(clockCheck.state().diferenca_nuvem_segundos).toBe(89);
  });

  it('a slow answer widens the window: the cloud may have stamped it any time while it travelled', async () => {
    const { clockCheck } = await check();
    // Stamped 150 s before the box's now, but the answer took 200 s: the cloud may be at 13:00:51 now.
    clockCheck.cloudDate('Sat, 21 Nov 2026 12:57:30 GMT', 200_000);
    expect(clockCheck.state()).toMatchObject({ suspeito: false, diferenca_nuvem_segundos: 0 });
    clockCheck.cloudDate('Sat, 21 Nov 2026 12:57:30 GMT', 1_000);
    expect(clockCheck.state()).toMatchObject({ suspeito: true, diferenca_nuvem_segundos: 148 });
  });

  it('the reading is carried by the monotonic clock: a later jump of the wall clock shows at once, and so does its fix', async () => {
    const { clockCheck, tick } = await check();
    clockCheck.cloudDate('Sat, 21 Nov 2026 13:00:00 GMT', 10);
    tick(60_000);
    box.clock.advance(60_000);
    expect(clockCheck.state()).toMatchObject({ suspeito: false, diferenca_nuvem_segundos: 0 });
    // The wall clock jumps an hour ahead while the cloud is out of reach.
    box.clock.advance(3_600_000);
    expect(clockCheck.state()).toMatchObject({
      suspeito: true,
      motivo: 'diferenca_da_nuvem',
      diferenca_nuvem_segundos: 3598,
    });
    box.clock.advance(-3_600_000);
    expect(clockCheck.state().suspeito).toBe(false);
  });

  it('a good reading vouches for the clock: events stamped by a clock that ran ahead no longer make it suspect', async () => {
    box = await createTestBox({ now: T });
    box.db.sqlite
      .prepare(
        "insert into events (tenant_id, occurred_at, action, mode, code, result, source) values (?, '2027-03-01T00:00:00.000Z', 'checkin', 'qr', 'FUT', 'ok', 'api')",
      )
      .run(box.tenantId);
    let mono = 0;
    const clockCheck = createClockCheck({ db: box.db, clock: box.clock, monotonic: () => mono });
    expect(clockCheck.state()).toMatchObject({
      suspeito: true,
      motivo: 'atrasado_em_relacao_ao_ultimo_evento',
      ultimo_evento_em: '2027-03-01T00:00:00.000Z',
    });
    clockCheck.cloudDate(new Date(T).toUTCString(), 5);
    expect(clockCheck.state()).toMatchObject({ suspeito: false, motivo: null, ultimo_evento_em: null });
    mono += 5 * 60_000;
    box.clock.advance(5 * 60_000);
    expect(clockCheck.eventMark(box.clock.now())).toBeNull();
  });
});

describe('the start line', () => {
  it('carries the clock, and a clock behind the newest event is warned about loudly; the box serves anyway', async () => {
    ensureBuilt();
    const dir = tempDir('gate-clock-start-');
    const db = openDatabase(path.join(dir, 'gate.db'));
    await migrateToLatest(db);
    const tenantId = ensureTenant(db, 'parque', new Date().toISOString());
    const ahead = new Date(Date.now() + 86_400_000).toISOString();
    db.sqlite
      .prepare(
        "insert into events (tenant_id, occurred_at, action, mode, code, result, source) values (?, ?, 'checkin', 'qr', 'Q-1', 'ok', 'api')",
      )
      .run(tenantId, ahead);
    db.close();
    const children: ChildProcess[] = [];
    try {
      const served = await serveGate(
        {
          PATH: process.env.PATH,
          GATE_DATA_DIR: dir,
          GATE_HOST: '127.0.0.1',
          GATE_PORT: '0',
          GATE_TENANT: 'parque',
          GATE_TIMEZONE: TZ,
        },
        dir,
        children,
      );
      for (let i = 0; i < 100 && !served.output().includes('RELÓGIO SUSPEITO'); i++)
        await new Promise((r) => setTimeout(r, 20));
      const lines = served
        .output()
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              level: number;
              msg: string;
              relogio?: { suspeito: boolean; motivo: string; ultimo_evento_em: string };
            },
        );
      const start = lines.find((l) => l.msg === 'gate appliance listening')!;
      expect(start.relogio).toMatchObject({
        suspeito: true,
        motivo: 'atrasado_em_relacao_ao_ultimo_evento',
        ultimo_evento_em: ahead,
      });
      const warning = lines.find((l) => l.msg.startsWith('RELÓGIO SUSPEITO'))!;
      expect(warning.level).toBe(40);
      expect(warning.msg).toContain(`está antes do último evento registrado (${ahead})`);
      expect((await fetch(`${served.url}/health/live`)).status).toBe(200);
    } finally {
      for (const child of children) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
