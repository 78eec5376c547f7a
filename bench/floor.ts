import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';
import { codeHash } from '../src/lib/code-hash.js';
import { openDatabase } from '../src/db/open.js';
import { CHECKIN } from '../test/support/http.js';
import { qrOf } from './fill.js';

// The floor of `npm run bench` (issue 25 (1)): the least a durable, logged check-in can cost on this stack and
// machine, measured in the same rounds as the box. A bare fastify 5 route, at the check-in's path so that the same
// probes and loads reach it, that checks the key against one kept in
// memory (as the box remembers a verified key), marks a ticket used by one conditional UPDATE on its unique QR
// index, adds one event row, commits through the box's own group commit (src/db/write-queue.ts: WAL fsync on
// libuv's pool, checkpoints on a thread), writes one info line with the code's hash to a file (pino, synchronous,
// as the box's journal line) and answers a small JSON object. Everything the box does beyond it is left out: the
// body's schema, the rules, presence, the order in the answer (the spec's), metrics and the console feed.

export const FLOOR_KEY = 'floor-key';

/** A file of `people` tickets with the QRs of bench/fill.ts (qrOf), none used. */
export function fillFloor(file: string, people: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE tickets (id INTEGER PRIMARY KEY, qr TEXT NOT NULL UNIQUE, used_at TEXT);
           CREATE TABLE events (id INTEGER PRIMARY KEY, ticket_id INTEGER NOT NULL, at TEXT NOT NULL, terminal TEXT NOT NULL)`);
  const insert = db.prepare('INSERT INTO tickets (id, qr) VALUES (?, ?)');
  db.transaction(() => {
    for (let n = 0; n < people; n++) insert.run(n + 1, qrOf(n));
  })();
  db.close();
}

export function floorApp(file: string, logFile: string) {
  const db = openDatabase(file);
  const use = db.sqlite.prepare('UPDATE tickets SET used_at = ? WHERE qr = ? AND used_at IS NULL RETURNING id');
  const event = db.sqlite.prepare('INSERT INTO events (ticket_id, at, terminal) VALUES (?, ?, ?)');
  const log = pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true }));
  const app = Fastify({ logger: false });
  app.post(CHECKIN, async (request, reply) => {
    if (request.headers['x-api-key'] !== FLOOR_KEY)
      return reply.code(401).send({ success: false, error: { code: 'UNAUTHORIZED', message: 'Chave inválida' } });
    const { qr_code: qr, terminal } = request.body as { qr_code: string; terminal: string };
    const at = new Date().toISOString();
    const ticket = await db.writes.run(() => {
      const row = use.get(at, qr) as { id: number } | undefined;
      if (row) event.run(row.id, at, terminal);
      return row;
    });
    log.info({ terminal, resultado: ticket ? 'ok' : 'ALREADY_USED', codigo_hash: codeHash(qr) }, 'checkin');
    if (!ticket)
      return reply
        .code(409)
        .send({ success: false, error: { code: 'ALREADY_USED', message: 'Ingresso já utilizado' } });
    return { success: true, data: { message: 'Check-in realizado', qr_code: qr, id: ticket.id, checkin_em: at } };
  });
  return { app, db };
}
