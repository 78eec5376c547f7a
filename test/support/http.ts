import type { TestBox } from './box.js';

export const CHECKIN = '/api/v1/api-qrcode-checkin';

export async function checkin(box: TestBox, payload: unknown, key: string | null = box.keys.checkin, url = CHECKIN) {
  const res = await box.app.inject({
    method: 'POST',
    url,
    headers: key === null ? {} : { 'x-api-key': key },
    payload: payload as object,
  });
  return { status: res.statusCode, body: res.json() };
}

export async function reverse(box: TestBox, payload: unknown, key: string | null = box.keys.checkin, url = CHECKIN) {
  const res = await box.app.inject({
    method: 'PATCH',
    url,
    headers: key === null ? {} : { 'x-api-key': key },
    payload: payload as object,
  });
  return { status: res.statusCode, body: res.json() };
}

export const events = (box: TestBox) =>
  box.db.sqlite
    .prepare('select action, mode, code, qr_code, result, key_name, terminal, operador, source from events order by id')
    .all() as {
    action: string;
    mode: string;
    code: string;
    qr_code: string | null;
    result: string;
    key_name: string | null;
    terminal: string | null;
    operador: string | null;
    source: string;
  }[];
