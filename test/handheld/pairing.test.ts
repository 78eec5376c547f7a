import { afterEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { CHECKIN } from '../support/http.js';
import {
  deviceClient,
  handheldBox,
  pair,
  pairingToken,
  signInSupervisor,
  type Supervisor,
} from '../support/handheld.js';

// Pairing a handheld and what its key opens (docs/handheld.md, "Parear e acompanhar").

let box: TestBox;
let supervisor: Supervisor;
afterEach(() => box.close());

const sendToken = (token: string, nome = 'coletor-1') =>
  box.app.inject({ method: 'POST', url: '/api/handheld/parear', payload: { token, nome, versao_app: '1.0.0' } });
const state = { versao_app: '1.0.0', dados_em: null, fila: 0, decisoes_offline_hoje: 0 };

describe('pairing', () => {
  it('a supervisor makes a one-time code for the box URL; the device gets its own key, stored hashed', async () => {
    ({ box, supervisor } = await handheldBox());
    const res = await supervisor.post('/api/console/handhelds/pareamento');
    expect(res.statusCode).toBe(200);
    const { token, url, expira_em } = res.json().data;
    expect(url).toBe(`http://localhost:80/m/#parear=${token}`);
    expect(Date.parse(expira_em) - box.clock.now().getTime()).toBe(10 * 60_000);

    const paired = await sendToken(token);
    expect(paired.statusCode, paired.body).toBe(201);
    const { chave, dispositivo, tenant, data_local } = paired.json().data;
    expect(chave).toMatch(/^hk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(dispositivo.nome).toBe('coletor-1');
    expect({ tenant, data_local }).toEqual({ tenant: 'parque', data_local: '2026-11-21' });
    const stored = box.db.sqlite.prepare('SELECT key_hash FROM handheld_devices').get() as { key_hash: Buffer };
    expect(stored.key_hash.length).toBe(32);
    expect(JSON.stringify(box.db.sqlite.prepare('SELECT * FROM handheld_devices').all())).not.toContain(chave);

    // Used once: the same code again is refused, and so is one past its 10 minutes.
    expect((await sendToken(token, 'coletor-2')).json().error.code).toBe('PAREAMENTO_INVALIDO');
    const late = await pairingToken(supervisor);
    box.clock.advance(10 * 60_000);
    const expired = await sendToken(late, 'coletor-3');
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error).toMatchObject({
      code: 'PAREAMENTO_INVALIDO',
      message: expect.stringContaining('console'),
    });
  });

  it('two active devices cannot share a name; only a supervisor pairs', async () => {
    ({ box, supervisor } = await handheldBox());
    await pair(box, supervisor, 'coletor-1');
    const again = await sendToken(await pairingToken(supervisor), 'coletor-1');
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('NOME_EM_USO');

    const { createOperator } = await import('../../src/operators/operators.repo.js');
    await createOperator(box.db, {
      tenantId: box.tenantId,
      nome: 'Ana',
      papel: 'atendente',
      segredo: '4321',
      nowIso: box.clock.nowIso(),
    });
    const login = await box.app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      payload: { nome: 'Ana', segredo: '4321', tenant: 'parque', estacao: 'x' },
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const res = await box.app.inject({
      method: 'POST',
      url: '/api/console/handhelds/pareamento',
      headers: { cookie, 'x-csrf-token': login.json().data.csrf },
    });
    expect(res.json().error.code).toBe('PAPEL_INSUFICIENTE');
  });

  it('bad pairing input gets a clear 4xx in the envelope, never a 5xx', async () => {
    ({ box, supervisor } = await handheldBox());
    for (const payload of [
      {},
      { token: 'x', nome: 'a', versao_app: '1' },
      { token: 'y'.repeat(30), nome: '', versao_app: '1' },
      'lixo',
    ]) {
      const res = await box.app.inject({ method: 'POST', url: '/api/handheld/parear', payload: payload as object });
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: expect.any(String), message: expect.any(String) },
      });
    }
  });
});

describe("a device's key", () => {
  it('opens the handheld endpoints only; the API refuses it', async () => {
    ({ box, supervisor } = await handheldBox());
    const device = await pair(box, supervisor, 'coletor-1');
    expect((await device.put('/api/handheld/estado', state)).statusCode).toBe(200);
    const api = await box.app.inject({
      method: 'POST',
      url: CHECKIN,
      headers: { 'x-api-key': device.key },
      payload: { qr_code: 'X' },
    });
    expect(api.json().error.code).toBe('INVALID_API_KEY');
    // And an API key does not open the handheld endpoints.
    const withApiKey = await box.app.inject({
      method: 'PUT',
      url: '/api/handheld/estado',
      headers: { 'x-handheld-key': box.keys.all },
      payload: state,
    });
    expect(withApiKey.json().error.code).toBe('CHAVE_HANDHELD_INVALIDA');
    const none = await box.app.inject({ method: 'GET', url: '/api/handheld/dados' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('CHAVE_HANDHELD_AUSENTE');
  });

  it('a revoked device is refused with DISPOSITIVO_REVOGADO; the console lists it revoked', async () => {
    ({ box, supervisor } = await handheldBox());
    const device = await pair(box, supervisor, 'coletor-1');
    const revoke = await supervisor.post(`/api/console/handhelds/${device.id}/revogar`);
    expect(revoke.statusCode, revoke.body).toBe(200);
    const res = await device.put('/api/handheld/estado', state);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: 'DISPOSITIVO_REVOGADO', message: expect.stringContaining('fila') });
    const list = (await supervisor.get('/api/console/handhelds')).json().data.aparelhos;
    expect(list[0]).toMatchObject({ nome: 'coletor-1', revogado_em: box.clock.nowIso() });
    expect((await supervisor.post(`/api/console/handhelds/${device.id}/revogar`)).statusCode).toBe(404);
    // Its name is free again for a new pairing.
    expect((await pair(box, supervisor, 'coletor-1')).id).not.toBe(device.id);
  });

  it("another tenant's supervisor neither sees nor revokes this tenant's devices", async () => {
    ({ box, supervisor } = await handheldBox());
    const device = await pair(box, supervisor, 'coletor-1');
    const other = await signInSupervisor(box, 'Olga', box.otherTenantId);
    expect((await other.get('/api/console/handhelds')).json().data.aparelhos).toEqual([]);
    expect((await other.post(`/api/console/handhelds/${device.id}/revogar`)).statusCode).toBe(404);
    expect((await device.put('/api/handheld/estado', state)).statusCode).toBe(200);
  });
});

describe('the console lists devices', () => {
  it('with last seen, version, data age, queue, offline decisions; an alarm after 15 minutes unseen with a queue', async () => {
    ({ box, supervisor } = await handheldBox());
    const device = await pair(box, supervisor, 'coletor-1');
    const told = await device.put('/api/handheld/estado', {
      versao_app: '1.2.0',
      dados_em: '2026-11-21T12:59:00.000Z',
      fila: 7,
      decisoes_offline_hoje: 12,
    });
    expect(told.json().data).toEqual({ data_local: '2026-11-21', agora: box.clock.nowIso(), nome: 'coletor-1' });
    const list = async () => (await supervisor.get('/api/console/handhelds')).json().data;
    expect((await list()).aparelhos[0]).toMatchObject({
      nome: 'coletor-1',
      visto_em: box.clock.nowIso(),
      versao_app: '1.2.0',
      dados_em: '2026-11-21T12:59:00.000Z',
      fila: 7,
      decisoes_offline_hoje: 12,
      alarme: false,
    });
    box.clock.advance(15 * 60_000 + 1000);
    expect(await list()).toMatchObject({ alarmes: 1, aparelhos: [{ alarme: true }] });
    const metrics = (await box.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('gate_handhelds_silent_with_queue 1');
    expect(metrics).toContain('gate_handheld_queued_movements 7');
    // Seen again with an empty queue: no alarm.
    await device.put('/api/handheld/estado', {
      versao_app: '1.2.0',
      dados_em: null,
      fila: 0,
      decisoes_offline_hoje: 12,
    });
    box.clock.advance(60 * 60_000);
    expect((await list()).alarmes).toBe(0);
  });
});

describe('handhelds off', () => {
  it('a box without GATE_HANDHELD has no handheld endpoints', async () => {
    box = await createTestBox();
    const res = await deviceClient(box, 'hk_x', 1, 'x').get('/api/handheld/dados');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });
});
