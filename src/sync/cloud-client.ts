import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { clienteRecordSchema, type ClienteRecord } from '../clients/client.schemas.js';
import { availabilitySchema, comboSchema, type Combo, type ComboAvailability } from '../combos/combo.schemas.js';
import { describeIssues } from '../lib/zod-issues.js';
import {
  CloudUnavailableError,
  checkinResults,
  fieldOf,
  listItems,
  parseEach,
  parseJson,
  successData,
  type ItemResult,
  type Rejected,
} from './cloud-envelopes.js';
import {
  call,
  callBytes,
  get,
  openLink,
  query,
  utf8,
  type CloudClientOptions,
  type CloudDateListener,
  type Link,
} from './cloud-link.js';
import { checkedPage, type CheckedPage } from './page-splitter.js';

const gunzip = promisify(zlib.gunzip);
const isGzip = (b: Buffer) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

export type { CloudClientOptions, CloudDateListener } from './cloud-link.js';
export { CloudUnavailableError, type ItemResult, type Rejected, type TransientKind } from './cloud-envelopes.js';

export interface Page<T> {
  items: T[];
  /** Items of the page that did not fit the import schema. */
  rejected: Rejected[];
  /** How many items the cloud returned (valid or not): paging goes by this. */
  received: number;
}

/**
 * A page of orders checked against the import schema off the event loop (page-splitter.ts): each
 * valid order's JSON as the schema outputs it, or why it does not fit; each one's number (or
 * `#position` when it has none); and the body the page came in, as bytes.
 */
export interface VoucherPage extends CheckedPage {
  refs: string[];
  received: number;
  body: Buffer;
  /**
   * What to keep of a page the cloud marked: its bytes gzipped off the event loop (an eighth of
   * them: keeping and deleting 1.2 MB took the event loop 4–5 ms each time). Null for other pages.
   */
  packed: Buffer | null;
}

export interface VoucherQuery {
  sincronizado?: boolean;
  marcar: boolean;
  data_uso?: string;
  limit: number;
  offset: number;
}

export interface ClientQuery {
  sincronizado?: boolean;
  marcar: boolean;
  limit: number;
  offset: number;
}

export interface CheckinActor {
  terminal: string | null;
  operador: string | null;
}

export interface CloudClient {
  listVouchers(q: VoucherQuery, signal?: AbortSignal): Promise<VoucherPage>;
  /**
   * A page of orders kept from an earlier answer (HTTP 200), read again: its bytes gzipped (VoucherPage.packed), or its
   * text when kept by an earlier release.
   */
  readVoucherPage(kept: Buffer | string): Promise<VoucherPage>;
  listClients(q: ClientQuery, signal?: AbortSignal): Promise<Page<ClienteRecord>>;
  listCombos(q: { limit: number; offset: number }, signal?: AbortSignal): Promise<Page<Combo>>;
  comboAvailability(comboId: string, from: string, to: string, signal?: AbortSignal): Promise<ComboAvailability>;
  /**
   * POST (check-in) or PATCH (reversal) api-qrcode-checkin with distinct comma-separated codes: one result per code.
   */
  send(
    action: 'checkin' | 'estorno',
    codes: readonly string[],
    actor: CheckinActor,
    signal?: AbortSignal,
  ): Promise<ItemResult[]>;
  /**
   * Hears the `Date` header of every answer from the cloud's application (below 500), with the milliseconds from
   * request to headers.
   */
  onDate?(listener: CloudDateListener): void;
  close(): Promise<void>;
}

async function voucherPage(
  link: Link,
  body: Buffer,
  status: number,
  offset: number,
  pack: boolean,
): Promise<VoucherPage> {
  const split = status === 200 ? await link.splitter.split(body, pack) : { body: parseJson(utf8.decode(body), status) };
  if ('malformed' in split)
    throw new CloudUnavailableError('malformed', `HTTP ${status}, ${body.length} bytes`, status);
  const { items, refs, reasons, packed } =
    'items' in split ? split : { ...checkedPage(listItems(successData(split.body, status))), packed: null };
  return {
    items,
    refs: refs.map((ref, i) => ref ?? `#${offset + i}`),
    reasons,
    received: items.length,
    body,
    packed,
  };
}

/** The spec's listing query: marking as `marcar_sincronizado`, oldest first. */
export const listing = (q: VoucherQuery | ClientQuery): string =>
  query({ ...q, marcar: undefined, marcar_sincronizado: q.marcar, order_by: 'created_at', order: 'asc' });

async function listVouchers(link: Link, q: VoucherQuery, signal?: AbortSignal) {
  const res = await callBytes(link, 'GET', `/api/v1/api-vouchers?${listing(q)}`, 'api', undefined, signal);
  return voucherPage(link, res.body, res.status, q.offset, q.marcar);
}

async function listClients(link: Link, q: ClientQuery, signal?: AbortSignal) {
  const items = listItems(await get(link, `/api/v1/api-clientes?${listing(q)}`, 'api', signal));
  return parseEach(items, clienteRecordSchema, (raw, i) => fieldOf(raw, 'id') ?? `#${q.offset + i}`);
}

async function listCombos(link: Link, q: { limit: number; offset: number }, signal?: AbortSignal) {
  const items = listItems(await get(link, `/api/integration/combos?${query(q)}`, 'integration', signal));
  return parseEach(items, comboSchema, (raw, i) => fieldOf(raw, 'id') ?? `#${q.offset + i}`);
}

async function comboAvailability(link: Link, comboId: string, from: string, to: string, signal?: AbortSignal) {
  const data = await get(
    link,
    `/api/integration/combos/${encodeURIComponent(comboId)}/availability?${query({ date_from: from, date_to: to })}`,
    'integration',
    signal,
  );
  const parsed = availabilitySchema.safeParse(data);
  if (!parsed.success)
    throw new CloudUnavailableError(
      'envelope',
      `disponibilidade do combo ${comboId}: ${describeIssues(parsed.error)[0]}`,
    );
  return parsed.data;
}

async function send(
  link: Link,
  action: 'checkin' | 'estorno',
  codes: readonly string[],
  actor: CheckinActor,
  signal?: AbortSignal,
) {
  const body = {
    qr_code: codes.join(','),
    ...(actor.terminal ? { terminal: actor.terminal } : {}),
    ...(actor.operador ? { operador: actor.operador } : {}),
  };
  const method = action === 'checkin' ? 'POST' : 'PATCH';
  const res = await call(link, method, '/api/v1/api-qrcode-checkin', 'api', body, signal);
  return checkinResults(codes, res.body, res.status);
}

/** The box as a client of the cloud's integration API, over one keep-alive pool. Never retries: the worker decides. */
export function createCloudClient(opts: CloudClientOptions): CloudClient {
  const link = openLink(opts);
  return {
    listVouchers: (q, signal) => listVouchers(link, q, signal),
    async readVoucherPage(kept) {
      const bytes = typeof kept === 'string' ? Buffer.from(kept) : isGzip(kept) ? await gunzip(kept) : kept;
      return voucherPage(link, bytes, 200, 0, false);
    },
    listClients: (q, signal) => listClients(link, q, signal),
    listCombos: (q, signal) => listCombos(link, q, signal),
    comboAvailability: (comboId, from, to, signal) => comboAvailability(link, comboId, from, to, signal),
    send: (action, codes, actor, signal) => send(link, action, codes, actor, signal),
    onDate(listener) {
      link.dateListener = listener;
    },
    close: async () => {
      await link.splitter.close();
      await link.pool.close();
    },
  };
}
