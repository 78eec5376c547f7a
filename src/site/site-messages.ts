import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { MovementFact } from '../checkin/checkin.service.js';
import type { SiteRejectReason } from './site.answers.js';

// The site's messages on the hub (docs/site.md, "Messages"): one JetStream stream, one subject per ticket (a
// person's QR or an additional's), so that the server's expected-last-subject-sequence check makes exactly one
// claim of a ticket win. The body is the movement, JSON, version 1.

export const STREAM = 'GATE_SITE';
export const STREAM_SUBJECTS = 'gate.site.>';
/** A message larger than this is skipped unread (a movement is well under 1 KB). */
export const MAX_MESSAGE_BYTES = 8 * 1024;
export const VERSION = 1;

/** A ticket's subject: the tenant, the kind, and a hash of the QR (the QR itself never appears in a subject). */
export const subjectOf = (tenant: string, kind: MovementFact['kind'], qr: string): string =>
  `gate.site.${tenant}.${kind === 'person' ? 'p' : 'a'}.${createHash('sha256').update(qr).digest('hex').slice(0, 32)}`;

/** A box's notices that the cloud settled some of its movements (a ticket's next movement elsewhere waits for it). */
export const settledSubject = (tenant: string, box: string) => `gate.site.${tenant}.n.${box}`;

/** Live presence of the boxes (core NATS, not stored): each box announces itself every few seconds. */
export const presenceSubject = (tenant: string, box: string) => `gate.presenca.${tenant}.${box}`;

export const ACTIONS = ['checkin', 'entrada', 'reentrada', 'saida', 'estorno'] as const;

const messageSchema = z.strictObject({
  v: z.literal(VERSION),
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}\.[A-Za-z0-9_-]{8,40}$/),
  box: z.string().min(1).max(32),
  run: z.string().min(1).max(40),
  sig: z.string().regex(/^[0-9a-f]{32}$/),
  tenant: z.string().min(1).max(64),
  action: z.string().min(1).max(32),
  kind: z.enum(['person', 'additional']),
  qr: z.string().min(1).max(200),
  code: z.string().min(1).max(1000),
  mode: z.enum(['qr', 'combo', 'adicional', 'pedido']),
  at: z.iso.datetime({ offset: true }),
  area: z.string().min(1).max(64),
  terminal: z.string().max(200).nullable(),
  operator: z.string().max(200).nullable(),
  source: z.string().min(1).max(32),
  local: z.boolean(),
  undoes: z.string().max(80).optional(),
});

export type SiteMessage = z.output<typeof messageSchema>;

const MAX_SETTLED = 500;

const settledSchema = z.strictObject({
  v: z.literal(VERSION),
  type: z.literal('nuvem'),
  id: messageSchema.shape.id,
  box: messageSchema.shape.box,
  run: messageSchema.shape.run,
  sig: messageSchema.shape.sig,
  tenant: messageSchema.shape.tenant,
  /** Each settled movement's site id and what the cloud said of it (sync_push.resultado). */
  settled: z
    .array(
      z.tuple([
        z.string().min(1).max(80),
        z.enum(['aceito', 'ja_utilizado_na_nuvem', 'fora_do_prazo', 'cancelado_na_nuvem', 'outro']),
      ]),
    )
    .min(1)
    .max(MAX_SETTLED),
});

export type Settled = z.output<typeof settledSchema>['settled'];

/**
 * Who this box is on the site. Its messages are signed with a key made from its hub password (the file on this
 * box, kept across a reinstall): another holder of the hub's credentials of another box cannot sign as this one.
 */
export interface Origin {
  tenant: string;
  box: string;
  boxes: readonly string[];
  /** This process's run: a claim of another run with no local event is an orphan of a crash. */
  run: string;
  /** This database's earlier runs: an orphan claim is one of theirs with nothing recorded here. */
  earlierRuns: ReadonlySet<string>;
  secret: Buffer;
}

export const signingKey = (password: string) => createHash('sha256').update(`gate-site\n${password}`).digest();

let idsMade = 0;
/**
 * A movement's id on the site: the run, a counter, then 62 random bits. Ids of one run sort in the order they were
 * made, so every box's unique index on them (events.site_id) grows at one end instead of at a random page per
 * movement (about 20 µs of a catch-up's cost per movement on this machine, with wholly random ids); the random tail
 * keeps them unguessable, so no holder of the hub's credentials can take a future id first (the hub would answer
 * that claim "duplicate"). randomUUID draws from a pool Node refills in blocks (randomBytes made one getrandom call
 * per id).
 */
export const newSiteId = (o: Pick<Origin, 'box' | 'run'>) =>
  `${o.box}.${o.run}${(idsMade++).toString(36).padStart(7, '0')}${randomUUID().replaceAll('-', '').slice(-16)}`;
export const newRun = () => randomBytes(9).toString('base64url');

const signature = (secret: Buffer, id: string) => createHmac('sha256', secret).update(id).digest('hex').slice(0, 32);

const utf8 = new TextEncoder();
type MovementBody = Omit<SiteMessage, 'v' | 'box' | 'run' | 'sig' | 'tenant'>;

const encodeBody = (o: Origin, m: MovementBody): Uint8Array =>
  utf8.encode(
    JSON.stringify({ v: VERSION, box: o.box, run: o.run, sig: signature(o.secret, m.id), tenant: o.tenant, ...m }),
  );

/**
 * A movement as every other box accepts it: at most MAX_MESSAGE_BYTES, and its free text within the schema's lengths.
 * The QR is the ticket and stays whole; what was scanned, the terminal and the operator are only told, so they are
 * cut when needed (200 characters of quotes or control characters take 1,200 bytes once escaped: a movement could
 * reach 10 KB, and every other box would skip it as `grande_demais`).
 */
export function encodeMessage(o: Origin, m: MovementBody): Uint8Array {
  let fitted = withinLengths(m);
  let bytes = encodeBody(o, fitted);
  for (const field of ['terminal', 'operator', 'code'] as const) {
    const value = fitted[field];
    if (bytes.byteLength <= MAX_MESSAGE_BYTES) break;
    if (value === null) continue;
    const budget = jsonBytes(value) - (bytes.byteLength - MAX_MESSAGE_BYTES);
    fitted = { ...fitted, [field]: clipToBytes(value, budget) };
    bytes = encodeBody(o, fitted);
  }
  return bytes;
}

const jsonBytes = (s: string) => Buffer.byteLength(JSON.stringify(s));

const CODE_MAX = messageSchema.shape.code.maxLength!;
const TERMINAL_MAX = messageSchema.shape.terminal.unwrap().maxLength!;
const OPERATOR_MAX = messageSchema.shape.operator.unwrap().maxLength!;

function withinLengths(m: MovementBody): MovementBody {
  const long = (s: string | null, max: number) => s !== null && s.length > max;
  if (!long(m.code, CODE_MAX) && !long(m.terminal, TERMINAL_MAX) && !long(m.operator, OPERATOR_MAX)) return m;
  return {
    ...m,
    code: clip(m.code, CODE_MAX),
    terminal: m.terminal === null ? null : clip(m.terminal, TERMINAL_MAX),
    operator: m.operator === null ? null : clip(m.operator, OPERATOR_MAX),
  };
}

/** The first `n` characters, never half of a surrogate pair. */
function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(0, n);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** The longest start of `s` whose JSON takes at most `budget` bytes (binary search: the rare path of an odd field). */
function clipToBytes(s: string, budget: number): string {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(clip(s, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return clip(s, lo);
}

type Action = (typeof ACTIONS)[number];

export type Decoded =
  | { ok: true; kind: 'movement'; message: SiteMessage & { action: Action }; mine: boolean }
  | { ok: true; kind: 'settled'; box: string; settled: Settled; mine: boolean }
  | { ok: false; reason: SiteRejectReason; detail: string | null };

const rejected = (reason: SiteRejectReason, detail: string | null = null): Decoded => ({ ok: false, reason, detail });

/** Reads a message from the hub: anything that is not a movement of this site's boxes, for this tenant, is refused. */
export function decodeMessage(o: Origin, subject: string, data: Uint8Array): Decoded {
  if (data.byteLength > MAX_MESSAGE_BYTES) return rejected('grande_demais', `${data.byteLength} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch {
    return rejected('nao_json');
  }
  if (typeof json === 'object' && json !== null && 'v' in json && json.v !== VERSION)
    return rejected('versao', String((json as { v: unknown }).v).slice(0, 20));
  if (subject.startsWith(settledSubject(o.tenant, ''))) return decodeSettled(o, subject, json);
  const parsed = messageSchema.safeParse(json);
  if (!parsed.success) return rejected('esquema', parsed.error.issues[0]?.path.join('.') ?? null);
  const m = parsed.data;
  if (m.tenant !== o.tenant) return rejected('outro_tenant', m.tenant);
  if (!o.boxes.includes(m.box)) return rejected('caixa_desconhecida', m.box);
  if (!(ACTIONS as readonly string[]).includes(m.action)) return rejected('acao_desconhecida', m.action);
  if (!m.id.startsWith(`${m.box}.`) || subject !== subjectOf(o.tenant, m.kind, m.qr))
    return rejected('origem_forjada', m.box);
  const mine = m.box === o.box;
  if (mine && !sameSignature(signature(o.secret, m.id), m.sig)) return rejected('origem_forjada', m.box);
  return { ok: true, kind: 'movement', message: m as SiteMessage & { action: Action }, mine };
}

function decodeSettled(o: Origin, subject: string, json: unknown): Decoded {
  const parsed = settledSchema.safeParse(json);
  if (!parsed.success) return rejected('esquema', parsed.error.issues[0]?.path.join('.') ?? null);
  const m = parsed.data;
  if (m.tenant !== o.tenant) return rejected('outro_tenant', m.tenant);
  if (!o.boxes.includes(m.box)) return rejected('caixa_desconhecida', m.box);
  if (!m.id.startsWith(`${m.box}.`) || subject !== settledSubject(o.tenant, m.box))
    return rejected('origem_forjada', m.box);
  const mine = m.box === o.box;
  if (mine && !sameSignature(signature(o.secret, m.id), m.sig)) return rejected('origem_forjada', m.box);
  return { ok: true, kind: 'settled', box: m.box, settled: m.settled, mine };
}

export function encodeSettled(o: Origin, id: string, settled: Settled): Uint8Array {
  const body = {
    v: VERSION,
    type: 'nuvem',
    id,
    box: o.box,
    run: o.run,
    sig: signature(o.secret, id),
    tenant: o.tenant,
    settled,
  };
  return utf8.encode(JSON.stringify(body));
}

export interface SettledNotice {
  id: string;
  body: Uint8Array;
  /** How many of the movements given, from the previous notice's end, this one carries. */
  count: number;
}

/**
 * The settled movements as notices every other box accepts: each filled greedily up to MAX_MESSAGE_BYTES (and the
 * schema's count), in order, each with its own id. 500 settled ids took 16–21 KB: every other box skipped them.
 */
export function encodeSettledNotices(o: Origin, settled: Settled, newId: () => string): SettledNotice[] {
  const notices: SettledNotice[] = [];
  for (let from = 0; from < settled.length;) {
    const id = newId();
    // JSON.stringify writes an array as `[a,b,...]`: the empty notice, each item, and a comma between two.
    let size = encodeSettled(o, id, []).byteLength;
    let count = 0;
    while (from + count < settled.length && count < MAX_SETTLED) {
      const item = Buffer.byteLength(JSON.stringify(settled[from + count])) + (count > 0 ? 1 : 0);
      if (count > 0 && size + item > MAX_MESSAGE_BYTES) break;
      size += item;
      count++;
    }
    notices.push({ id, body: encodeSettled(o, id, settled.slice(from, from + count)), count });
    from += count;
  }
  return notices;
}

function sameSignature(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** A movement of another box as the check-in core records it. */
export const factOf = (m: SiteMessage, seq: number): MovementFact => ({
  action: m.action as MovementFact['action'],
  kind: m.kind,
  qr: m.qr,
  code: m.code,
  mode: m.mode,
  at: m.at,
  area: m.area,
  terminal: m.terminal,
  operator: m.operator,
  source: m.source,
  site: { id: m.id, box: m.box, seq, withoutSite: m.local },
  undoes: m.undoes,
});

/** What identifies the message at a sequence: to tell, on reconnecting, whether the hub still holds what we applied. */
export const fingerprint = (data: Uint8Array) => createHash('sha256').update(data).digest('hex').slice(0, 24);
