import type { ScanNotice } from '../checkin/checkin.service.js';
import type { CheckinResult, ReversalResult } from '../checkin/result.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { errorCatalogue, type ErrorCode } from '../http/errors.js';
import { loadOrders, voucherPedido } from '../orders/order.payload.js';
import type { Leitura, PedidoConsole } from './console.answers.js';

// What the console shows of a scan and of an order: the service's typed results worded for gate
// staff in plain Portuguese (docs/console.md).

export type { Leitura };

const TITLES: Partial<Record<ErrorCode, string>> = {
  TICKET_ALREADY_USED: 'JÁ UTILIZADO',
  TICKET_EXPIRED: 'FORA DA DATA',
  TICKET_NOT_VALID_YET: 'FORA DA DATA',
  TICKET_CANCELLED: 'CANCELADO',
  TICKET_NOT_FOUND: 'NÃO ENCONTRADO',
  ORDER_NOT_FOUND: 'NÃO ENCONTRADO',
  ORDER_NOT_PAID: 'NÃO PAGO',
  CAPACITY_REACHED: 'LOTADO',
  SEM_CHECKIN: 'SEM CHECK-IN',
  JA_ESTORNADO: 'JÁ ESTORNADO',
  ESTORNO_NAO_PERMITIDO: 'FORA DO PRAZO',
};

export const refusalTitle = (code: ErrorCode) => TITLES[code] ?? 'RECUSADO';

const STATUS_TEXT: Record<string, string> = {
  cancelado: 'Pedido cancelado',
  reembolsado: 'Pedido reembolsado',
  pago: 'Pedido pago',
};

/** The statements the view reads: a person with their lot, an order's first lot, an order's id, its people. */
function viewStatements(db: Db) {
  return {
    personByQr: db.statement(
      `SELECT p.nome, p.qr_code, p.checkin_em, p.checkin_dispositivo, l.nome_ingresso, l.nome_lote, l.data_uso
       FROM people p JOIN lots l ON l.id = p.lot_id WHERE p.tenant_id = ? AND p.qr_code = ?`,
    ),
    lot: db.statement('SELECT nome_ingresso, nome_lote, data_uso FROM lots WHERE id = ?'),
    lotOfOrder: db.statement(
      'SELECT nome_ingresso, nome_lote, data_uso FROM lots WHERE order_id = ? ORDER BY position LIMIT 1',
    ),
    orderId: db.statement('SELECT id FROM orders WHERE tenant_id = ? AND numero_pedido = ?'),
    peopleOf: db.statement(
      `SELECT p.qr_code, p.nome, l.nome_ingresso || ' · ' || l.nome_lote AS lote, l.data_uso, p.checkin_em, p.checkin_dispositivo AS checkin_terminal,
            p.checkin_operador, p.estornado_em, p.estorno_dispositivo AS estorno_terminal, p.estorno_operador
       FROM people p JOIN lots l ON l.id = p.lot_id WHERE p.order_id = ? ORDER BY l.position, p.position`,
    ),
  };
}
type ViewStatements = ReturnType<typeof viewStatements>;

type PersonLot = {
  nome: string;
  qr_code: string;
  checkin_em: string | null;
  checkin_dispositivo: string | null;
  nome_ingresso: string;
  nome_lote: string;
  data_uso: string;
};

/** What every Leitura of a notice has, granted or refused. */
type LeituraBase = Pick<Leitura, 'acao' | 'em' | 'porta' | 'terminal' | 'operador'>;
type RefusalText = (code: ErrorCode, details: Record<string, unknown>, tenantId: number) => string;

const dayMonth = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}`;

/** The plain sentence for a refusal, with what the staff can act on (when, where, which day). */
function refusalSentence(
  q: ViewStatements,
  time: Intl.DateTimeFormat,
  code: ErrorCode,
  details: Record<string, unknown>,
  tenantId: number,
): string {
  const qr = typeof details.qr_code === 'string' ? details.qr_code : null;
  switch (code) {
    case 'TICKET_ALREADY_USED': {
      if (typeof details.total_pessoas === 'number')
        return `Todos os ${details.total_pessoas} participantes já entraram`;
      const at = typeof details.checkin_em === 'string' ? details.checkin_em : null;
      const who = qr ? (q.personByQr.get(tenantId, qr) as PersonLot | undefined) : undefined;
      const where = who?.checkin_dispositivo ? ` no terminal ${who.checkin_dispositivo}` : '';
      return at ? `Ingresso já utilizado às ${time.format(new Date(at))}${where}` : 'Ingresso já utilizado';
    }
    case 'TICKET_NOT_VALID_YET':
      return typeof details.data_ingresso === 'string'
        ? `Ingresso para ${dayMonth(details.data_ingresso)}`
        : errorCatalogue[code].message;
    case 'TICKET_EXPIRED':
      return typeof details.data_ingresso === 'string'
        ? `Ingresso era para ${dayMonth(details.data_ingresso)}`
        : errorCatalogue[code].message;
    case 'TICKET_CANCELLED':
      return STATUS_TEXT[String(details.status)] ?? 'Pedido cancelado';
    default:
      return errorCatalogue[code].message.replace(/\.$/, '');
  }
}

function refusedLeitura(
  base: LeituraBase,
  result: Extract<CheckinResult | ReversalResult, { ok: false }>,
  tenantId: number,
  refusalText: RefusalText,
): Leitura {
  const details = result.details ?? {};
  const codigo = String(details.qr_code ?? details.combo_qr_code ?? details.numero_pedido ?? '');
  return {
    ...base,
    resultado: 'recusado',
    codigo,
    titulo: refusalTitle(result.code),
    mensagem: refusalText(result.code, details, tenantId),
    pessoas: [],
    numero_pedido: typeof details.numero_pedido === 'string' ? details.numero_pedido : null,
    lote: null,
    erro: { code: result.code, message: errorCatalogue[result.code].message, details: result.details ?? null },
  };
}

const orderIdOf = (q: ViewStatements, tenantId: number, numero: string) =>
  (q.orderId.get(tenantId, numero) as { id: number } | undefined)?.id ?? -1;

function grantedLeitura(
  base: LeituraBase,
  notice: Omit<ScanNotice, 'ms'>,
  granted: Exclude<CheckinResult | ReversalResult, { ok: false }>,
  q: ViewStatements,
  lots: (id: number) => Leitura['lote'] | undefined,
): Leitura {
  const first = granted.people[0];
  const lot = first ? lots(first.lotId) : undefined;
  const orderLot =
    !lot && granted.numeroPedido
      ? (q.lotOfOrder.get(orderIdOf(q, notice.tenantId, granted.numeroPedido)) as Leitura['lote'] | undefined)
      : undefined;
  const names = granted.people.map((p) => p.nome).filter((n) => n !== '');
  const reversal = notice.action === 'estorno';
  return {
    ...base,
    resultado: 'liberado',
    codigo: granted.code,
    titulo: reversal ? 'ESTORNADO' : 'LIBERADO',
    mensagem: reversal
      ? `Check-in estornado: ${granted.people.length} pessoa(s)`
      : names.length > 1
        ? `${names.length} pessoas liberadas`
        : (names[0] ?? 'Entrada liberada'),
    pessoas: granted.people.map((p) => ({ nome: p.nome, qr_code: p.qrCode })),
    numero_pedido: granted.numeroPedido,
    lote: lot
      ? { nome_ingresso: lot.nome_ingresso, nome_lote: lot.nome_lote, data_uso: lot.data_uso }
      : (orderLot ?? null),
    erro: null,
  };
}

export function createConsoleView({ db, clock }: { db: Db; clock: Clock }) {
  const time = new Intl.DateTimeFormat('pt-BR', { timeZone: clock.timeZone, hour: '2-digit', minute: '2-digit' });
  const q = viewStatements(db);
  const lotOf = lotCache(q);

  const refusalText: RefusalText = (code, details, tenantId) => refusalSentence(q, time, code, details, tenantId);

  function leitura(notice: Omit<ScanNotice, 'ms'>, at: string): Leitura {
    const { result } = notice;
    const base: LeituraBase = {
      acao: notice.action,
      em: at,
      porta: portOf(notice.source),
      terminal: notice.terminal,
      operador: notice.operador,
    };
    if (!result.ok) return refusedLeitura(base, result, notice.tenantId, refusalText);
    return grantedLeitura(base, notice, result as Exclude<CheckinResult | ReversalResult, { ok: false }>, q, lotOf);
  }

  /**
   * The order as the vouchers listing shapes it (nothing marked), with each person's check-in state; null when not of
   * the tenant.
   */
  function pedido(tenantId: number, numero: string): PedidoConsole | null {
    const id = orderIdOf(q, tenantId, numero);
    if (id < 0) return null;
    const record = loadOrders(db, [id], null)[0]!;
    const pessoas = q.peopleOf.all(id) as PedidoConsole['pessoas'];
    // The group QR of a combo sold in `unico` mode is the order number (spec 3.3); the box shows it
    // for orders that came with a combo (an additional with a combo_id), not for every order.
    const fromCombo = record.additionals.some((a) => a.combo_id !== null);
    return { pedido: voucherPedido(record), pessoas, combo_qr_code: fromCombo ? numero : null };
  }

  return { leitura, pedido, refusalText };
}

export type ConsoleView = ReturnType<typeof createConsoleView>;

const portOf = (source: string) => (source === 'lane' ? 'pista' : source);

/** How long a lot's names are shown as read: a re-import's new name reaches the consoles' scans within this. */
const LOT_TTL_MS = 60_000;
const MAX_LOTS = 500;

/**
 * The lots of the scans being shown, remembered a minute: a family's scans share one, and a read per scan was most of
 * what an open console cost each check-in (issue 25).
 */
function lotCache(q: ViewStatements) {
  const lots = new Map<number, { lot: Leitura['lote'] | undefined; at: number }>();
  return (id: number): Leitura['lote'] | undefined => {
    const now = performance.now();
    const known = lots.get(id);
    if (known && now - known.at < LOT_TTL_MS) return known.lot;
    const lot = q.lot.get(id) as Leitura['lote'] | undefined;
    if (lots.size >= MAX_LOTS) lots.delete(lots.keys().next().value!);
    lots.set(id, { lot, at: now });
    return lot;
  };
}
