import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { CheckinService } from '../checkin/checkin.service.js';
import type { CheckinResult } from '../checkin/result.js';
import type { Calendar } from '../checkin/rules/index.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { errorCatalogue, type ErrorCode } from '../http/errors.js';
import { describeIssues } from '../lib/zod-issues.js';
import { orderRows } from './day-data.js';
import { keepMove, knownMove } from './moves.repo.js';
import { qrHash } from './qr-hash.js';
import { HANDHELD_SOURCE, recordItem } from './upload.js';
import type { Device } from './devices.repo.js';
import {
  DEVICE_CLOCK_SKEW_MS,
  uploadItem,
  type ScanAnswer,
  type UploadItem,
  type UploadItemAnswer,
} from './handheld.schemas.js';

// A handheld's two ways of checking in (docs/handheld.md): online the box decides, through the one check-in service
// (door `handheld`, terminal = the device's name); offline the device decided and uploads its movements later, which
// the box records as facts — the visitor already went through — and classifies into the conflicts feed.

/** Uploaded movements recorded per write at most: a scan at a lane waits for one piece at most. */
const ITEMS_PER_WRITE = 20;
/**
 * A piece also ends once it has taken this long (at least one movement each): 20 movements a piece held the event
 * loop 10–34 ms in `npm run bench:heavy` (issue 25) on a busy box.
 */
export const UPLOAD_PIECE_MS = 2;
/** Movements checked against the schema per turn of the event loop (500 at once held it 5–13 ms). */
const CHECKED_PER_TURN = 100;

export interface HandheldServiceDeps {
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  /** GATE_HANDHELD_NOMES: people's names go to the devices. */
  names: boolean;
  /** How long a piece of an upload may take (UPLOAD_PIECE_MS); tests shrink it. */
  pieceMs?: number;
}

const messageOf = (code: string) =>
  code === 'ok' ? 'Check-in realizado.' : (errorCatalogue[code as ErrorCode]?.message ?? code);

/** The order a scanned code belongs to (person, group or additional QR), for the rows an answer carries. */
function orderOfCode(db: Db, tenantId: number, code: string): string | undefined {
  const row = db
    .statement(
      `SELECT o.numero_pedido AS n FROM people p JOIN orders o ON o.id = p.order_id WHERE p.qr_code = ? AND p.tenant_id = ?
       UNION ALL SELECT numero_pedido FROM orders WHERE numero_pedido = ? AND tenant_id = ?
       UNION ALL SELECT o.numero_pedido FROM additionals a JOIN orders o ON o.id = a.order_id
        WHERE a.adicional_qr_code = ? AND a.tenant_id = ? LIMIT 1`,
    )
    .get(code, tenantId, code, tenantId, code, tenantId) as { n: string } | undefined;
  return row?.n;
}

export function createHandheldService({ db, clock, checkin, names, pieceMs = UPLOAD_PIECE_MS }: HandheldServiceDeps) {
  /**
   * The order's rows now (the order's own too: the device then knows the status of an order of another day); a granted
   * scan names its order, a refusal is looked up by its code.
   */
  const rowsOf = (tenantId: number, code: string, known?: string | null) => {
    const numero = known ?? orderOfCode(db, tenantId, code);
    return numero ? orderRows(db, numero, tenantId, names) : { pedidos: [], pessoas: [], adicionais: [], lotes: [] };
  };

  // A retry that arrives while its first try is still being decided waits for that one's answer.
  const deciding = new Map<string, { device: number; code: string; answer: Promise<ScanAnswer> }>();

  /** POST /api/handheld/checkin: the box decides; a retry of the same id gets the first result. */
  async function scan(device: Device, req: { id: string; codigo: string; operador: string }): Promise<ScanAnswer> {
    const key = `${device.tenantId}:${req.id}`;
    const first = deciding.get(key);
    // As knownMove: the same movement is this device's id, or another key's with the same code.
    if (first && (first.device === device.id || first.code === req.codigo))
      return { ...(await first.answer), ja_recebido: true };
    if (first) {
      await first.answer.catch(() => undefined);
      return decideOnce(device, req);
    }
    const answer = decideOnce(device, req);
    deciding.set(key, { device: device.id, code: req.codigo, answer });
    try {
      return await answer;
    } finally {
      deciding.delete(key);
    }
  }

  async function decideOnce(device: Device, req: { id: string; codigo: string; operador: string }) {
    const known = knownMove(db, device, req.id, req.codigo);
    if (known)
      return {
        id: req.id,
        resultado: known.result,
        mensagem: messageOf(known.result),
        ja_recebido: true,
        liberados: known.admitted,
        ...rowsOf(device.tenantId, req.codigo),
      };
    const at = clock.nowIso();
    const move = { device: device.id, id: req.id, code: req.codigo, at, how: 'online' };
    const reply = await checkin.checkIn(
      { code: req.codigo, terminal: device.name, operator: req.operador },
      { tenantId: device.tenantId, apiKeyId: null, keyName: null, source: HANDHELD_SOURCE },
      {
        batch: false,
        // In the check-in's own transaction: a granted scan and its id are committed together.
        view: (granted) => {
          const admitted = granted.people.map((p) => qrHash(p.qrCode));
          keepMove(db, { ...move, result: 'ok', admitted });
          return admitted;
        },
      },
    );
    const result = (reply.batch ? reply.items[0]!.result : reply.result) as CheckinResult;
    if (!result.ok) await db.writes.run(() => keepMove(db, { ...move, result: result.code }));
    const code = result.ok ? 'ok' : result.code;
    return {
      id: req.id,
      resultado: code,
      mensagem: messageOf(code),
      ...(!result.ok && result.details ? { detalhes: result.details } : {}),
      ja_recebido: false,
      liberados: (reply.batch ? undefined : reply.view) ?? [],
      ...rowsOf(device.tenantId, req.codigo, result.ok ? result.numeroPedido : undefined),
    };
  }

  /** POST /api/handheld/movimentos: each item recorded once, in its own savepoint, piece by piece. */
  async function upload(device: Device, sentAt: string, items: unknown[]): Promise<UploadItemAnswer[]> {
    const now = clock.now();
    const skewed = Math.abs(Date.parse(sentAt) - now.getTime()) > DEVICE_CLOCK_SKEW_MS;
    const cal: Calendar = { today: clock.localDate(now), dayOf: clock.localDate };
    const answers: UploadItemAnswer[] = [];
    const seen = new Set<string>();
    const valid: { at: number; item: UploadItem }[] = [];
    for (let at = 0; at < items.length; at++) {
      if (at > 0 && at % CHECKED_PER_TURN === 0) await yieldLoop();
      const raw = items[at];
      const parsed = uploadItem.safeParse(raw);
      if (!parsed.success) {
        const id = (raw as { id?: unknown } | null)?.id;
        answers[at] = {
          id: typeof id === 'string' ? id.slice(0, 64) : null,
          estado: 'recusado',
          classificacao: [],
          erro: { code: 'ITEM_INVALIDO', message: `Movimento inválido: ${describeIssues(parsed.error).join('; ')}` },
        };
      } else if (seen.has(parsed.data.id)) {
        answers[at] = { id: parsed.data.id, estado: 'ja_recebido', classificacao: [] };
      } else {
        seen.add(parsed.data.id);
        valid.push({ at, item: parsed.data });
      }
    }
    const o = { skewed, cal, nowIso: now.toISOString() };
    for (let from = 0; from < valid.length;) {
      const done = await checkin.recordDoorFacts(device.tenantId, HANDHELD_SOURCE, (tools) => {
        const started = performance.now();
        const piece: UploadItemAnswer[] = [];
        for (let i = from; i < Math.min(valid.length, from + ITEMS_PER_WRITE); i++) {
          if (piece.length > 0 && performance.now() - started >= pieceMs) break;
          piece.push(tools.item(() => recordItem(db, tools, device, valid[i]!.item, o)));
        }
        return piece;
      });
      done.forEach((answer, i) => (answers[valid[from + i]!.at] = answer));
      from += done.length;
    }
    return answers;
  }

  return { scan, upload };
}

export type HandheldService = ReturnType<typeof createHandheldService>;
