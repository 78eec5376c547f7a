import type { Response } from 'light-my-request';
import { expect } from 'vitest';
import { createOperator } from '../../src/operators/operators.repo.js';
import type { App } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import type { Db } from '../../src/db/open.js';
import { createTestBox, type TestBoxOptions } from './box.js';

/** What these helpers need of a box: the test box's, or a sync gate's (test/support/sync-gate.ts). */
export interface BoxLike {
  app: App;
  db: Db;
  clock: Clock;
  tenantId: number;
}

// A box with handhelds on, a supervisor signed in to its console, and devices paired the way a park pairs them
// (docs/handheld.md): "Parear handheld" in the console, then the device sends the one-time token.

export const HANDHELDS = { timeoutMs: 800, names: false };

export interface Supervisor {
  post(url: string, payload?: object): Promise<Response>;
  get(url: string): Promise<Response>;
}

export async function signInSupervisor(box: BoxLike, nome = 'Sara', tenantId = box.tenantId): Promise<Supervisor> {
  await createOperator(box.db, { tenantId, nome, papel: 'supervisor', segredo: '4321', nowIso: box.clock.nowIso() });
  const tenant = tenantId === box.tenantId ? 'parque' : 'outro';
  const res = await box.app.inject({
    method: 'POST',
    url: '/api/console/entrar',
    payload: { nome, segredo: '4321', tenant, estacao: 'escritorio' },
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const csrf = res.json().data.csrf as string;
  return {
    post: (url, payload = {}) =>
      box.app.inject({ method: 'POST', url, payload, headers: { cookie, 'x-csrf-token': csrf } }),
    get: (url) => box.app.inject({ method: 'GET', url, headers: { cookie } }),
  };
}

/** A pairing token as the console's QR carries it. */
export async function pairingToken(supervisor: Supervisor): Promise<string> {
  const res = await supervisor.post('/api/console/handhelds/pareamento');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.token as string;
}

export interface Handheld {
  key: string;
  id: number;
  name: string;
  get(url: string): Promise<Response>;
  post(url: string, payload: unknown): Promise<Response>;
  put(url: string, payload: unknown): Promise<Response>;
}

export function deviceClient(box: BoxLike, key: string, id: number, name: string): Handheld {
  const headers = { 'x-handheld-key': key };
  return {
    key,
    id,
    name,
    get: (url) => box.app.inject({ method: 'GET', url, headers }),
    post: (url, payload) => box.app.inject({ method: 'POST', url, payload: payload as object, headers }),
    put: (url, payload) => box.app.inject({ method: 'PUT', url, payload: payload as object, headers }),
  };
}

export async function pair(box: BoxLike, supervisor: Supervisor, name: string): Promise<Handheld> {
  const token = await pairingToken(supervisor);
  const res = await box.app.inject({
    method: 'POST',
    url: '/api/handheld/parear',
    payload: { token, nome: name, versao_app: '1.0.0' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { chave: string; dispositivo: { id: number; nome: string } };
  return deviceClient(box, data.chave, data.dispositivo.id, data.dispositivo.nome);
}

export async function handheldBox(opts: TestBoxOptions = {}) {
  const box = await createTestBox({ handheld: HANDHELDS, ...opts });
  const supervisor = await signInSupervisor(box);
  return { box, supervisor };
}

let moves = 0;
/** A device-made movement id (the app makes its own the same shape: letters, digits, - and _). */
export const moveId = (prefix = 'mv') => `${prefix}-${Date.now().toString(36)}-${(moves += 1)}`;
