import { sql, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../db/open.js';
import { all, first, inList, run } from '../db/query.js';
import type { ComboItemsTable, CombosTable, ComboStockTable, DB } from '../db/schema.js';
import { toCents } from '../orders/money.js';
import type { Combo, ComboAvailability } from './combo.schemas.js';

export type ComboRow = Selectable<CombosTable>;
export type ComboItemRow = ComboItemsTable;
export type ComboStockRow = ComboStockTable;

/** Cloud data that does not fit what the box holds; `path` names the offending field of the input. */
export class ComboDataError extends Error {
  constructor(
    message: string,
    readonly path: (string | number)[],
  ) {
    super(message);
  }
}

/** How an availability item is matched to a combo item: same ticket type and lot names. */
export const itemKey = (i: { tipo_ingresso_nome: string; lote_nome: string }) =>
  `${i.tipo_ingresso_nome.normalize('NFC').trim().toLowerCase()}|${i.lote_nome.normalize('NFC').trim().toLowerCase()}`;
const itemsSignature = (
  items: { tipo_ingresso_id: string; categoria_lote_id: string; tipo_ingresso_nome: string; lote_nome: string }[],
) => items.map((i) => `${i.tipo_ingresso_id}|${i.categoria_lote_id}|${itemKey(i)}`).join('\n');

/**
 * Inserts or updates a combo keyed by (tenant, combo uuid) and replaces its items. Stock rows are
 * kept only while the items stay the same, since they point at items by position. Must run inside
 * a transaction.
 */
export function upsertCombo(db: Db, tenantId: number, c: Combo, nowIso: string): { comboPk: number; created: boolean } {
  const k = db.kysely;
  const existing = first(
    db,
    k.selectFrom('combos').select('id').where('tenant_id', '=', tenantId).where('combo_id', '=', c.id),
  );
  // The cloud keeps slugs unique, so a local holder of this slug is stale (renamed or deleted there):
  // it is retired until the cloud sends it again, instead of blocking every later pull.
  run(
    db,
    k
      .updateTable('combos')
      .set({ slug: sql<string>`'~' || combo_id`, ativo: 0, updated_at: nowIso })
      .where('tenant_id', '=', tenantId)
      .where('slug', '=', c.slug)
      .where('combo_id', '!=', c.id),
  );

  const columns = {
    slug: c.slug,
    nome: c.nome,
    descricao: c.descricao,
    preco_combo: toCents(c.preco_combo),
    preco_original: toCents(c.preco_original),
    economia_valor: toCents(c.economia.valor),
    economia_percentual: c.economia.percentual,
    tipo_desconto: c.tipo_desconto,
    modo_qrcode: c.modo_qrcode,
    requer_data: c.requer_data ? 1 : 0,
    destaque: c.destaque ? 1 : 0,
    max_por_pedido: c.max_por_pedido,
    total_ingressos: c.total_ingressos,
    itens_resumo: c.itens_resumo,
    ativo: c.ativo ? 1 : 0,
    updated_at: nowIso,
  };

  let comboPk: number;
  if (existing) {
    comboPk = existing.id;
    const before = all(db, k.selectFrom('combo_items').selectAll().where('combo_pk', '=', comboPk).orderBy('position'));
    run(db, k.updateTable('combos').set(columns).where('id', '=', comboPk));
    if (itemsSignature(before) !== itemsSignature(c.itens))
      run(db, k.deleteFrom('combo_stock').where('combo_pk', '=', comboPk));
    run(db, k.deleteFrom('combo_items').where('combo_pk', '=', comboPk));
  } else {
    comboPk = Number(
      run(db, k.insertInto('combos').values({ ...columns, tenant_id: tenantId, combo_id: c.id, created_at: nowIso }))
        .lastInsertRowid,
    );
  }
  c.itens.forEach((item, position) =>
    run(
      db,
      k.insertInto('combo_items').values({
        combo_pk: comboPk,
        position,
        tipo_ingresso_id: item.tipo_ingresso_id,
        tipo_ingresso_nome: item.tipo_ingresso_nome,
        lote_nome: item.lote_nome,
        categoria_lote_id: item.categoria_lote_id,
        quantidade: item.quantidade,
        preco_unitario: toCents(item.preco_unitario),
      }),
    ),
  );
  return { comboPk, created: !existing };
}

/**
 * Replaces the stock rows of every date the availability carries. Each item of a date is matched to
 * the combo's item with the same ticket type and lot names; an item the combo does not have is an
 * error rather than a guess. Must run inside a transaction.
 */
export function upsertAvailability(
  db: Db,
  tenantId: number,
  a: ComboAvailability,
  _nowIso: string,
): { comboPk: number; dates: number } {
  const k = db.kysely;
  const combo = first(
    db,
    k.selectFrom('combos').select('id').where('tenant_id', '=', tenantId).where('combo_id', '=', a.combo_id),
  );
  if (!combo)
    throw new ComboDataError(`combo ${a.combo_id} não encontrado: importe o combo antes da disponibilidade`, [
      'combo_id',
    ]);
  const items = all(
    db,
    k
      .selectFrom('combo_items')
      .select(['position', 'tipo_ingresso_nome', 'lote_nome'])
      .where('combo_pk', '=', combo.id)
      .orderBy('position'),
  );

  for (const [di, d] of a.dates.entries()) {
    run(db, k.deleteFrom('combo_stock').where('combo_pk', '=', combo.id).where('date', '=', d.date));
    const taken = new Set<number>();
    d.items_availability.forEach((entry, ii) => {
      const match = items.find((i) => !taken.has(i.position) && itemKey(i) === itemKey(entry));
      if (!match)
        throw new ComboDataError(
          `item ${entry.tipo_ingresso_nome} / ${entry.lote_nome} não faz parte do combo ${a.combo_id} (ou está repetido nesta data)`,
          ['dates', di, 'items_availability', ii],
        );
      taken.add(match.position);
      run(
        db,
        k.insertInto('combo_stock').values({
          combo_pk: combo.id,
          date: d.date,
          position: match.position,
          tipo_ingresso_nome: entry.tipo_ingresso_nome,
          lote_nome: entry.lote_nome,
          quantidade_necessaria: entry.quantidade_necessaria,
          estoque_disponivel: entry.estoque_disponivel,
        }),
      );
    });
  }
  return { comboPk: combo.id, dates: a.dates.length };
}

// Reads for the listings. Every query is scoped to the tenant; inactive combos are not served.

export interface ComboFilter {
  tenantId: number;
  destaque?: boolean | undefined;
  slug?: string | undefined;
}

function filtered(k: Kysely<DB>, f: ComboFilter) {
  let q = k.selectFrom('combos').where('tenant_id', '=', f.tenantId).where('ativo', '=', 1);
  if (f.destaque !== undefined) q = q.where('destaque', '=', f.destaque ? 1 : 0);
  if (f.slug !== undefined) q = q.where('slug', '=', f.slug);
  return q;
}

/** One page of active combos, featured first then by name, and the count of all that match. */
export function listCombos(db: Db, f: ComboFilter, limit: number, offset: number): { rows: ComboRow[]; total: number } {
  const k = db.kysely;
  const total =
    first(
      db,
      filtered(k, f).select((eb) => eb.fn.countAll<number>().as('n')),
    )?.n ?? 0;
  const rows = all(
    db,
    filtered(k, f)
      .selectAll()
      .orderBy('destaque', 'desc')
      .orderBy(sql`nome collate nocase`)
      .orderBy('id')
      .limit(limit)
      .offset(offset),
  );
  return { rows, total };
}

/** An active combo of the tenant by uuid or slug; the uuid wins if one combo's slug equals another's uuid. */
export function findCombo(db: Db, tenantId: number, idOrSlug: string): ComboRow | undefined {
  const k = db.kysely;
  return first(
    db,
    filtered(k, { tenantId })
      .selectAll()
      .where((eb) => eb.or([eb('combo_id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
      .orderBy(sql`combo_id = ${idOrSlug}`, 'desc')
      .limit(1),
  );
}

export function comboItems(db: Db, comboPks: readonly number[]): Map<number, ComboItemRow[]> {
  const k = db.kysely;
  const byCombo = new Map<number, ComboItemRow[]>(comboPks.map((pk) => [pk, []]));
  if (comboPks.length === 0) return byCombo;
  for (const item of all(
    db,
    k
      .selectFrom('combo_items')
      .selectAll()
      .where('combo_pk', 'in', inList(comboPks))
      .orderBy('combo_pk')
      .orderBy('position'),
  ))
    byCombo.get(item.combo_pk)?.push(item);
  return byCombo;
}

export function stockRows(db: Db, comboPk: number, from: string, to: string): ComboStockRow[] {
  const k = db.kysely;
  return all(
    db,
    k
      .selectFrom('combo_stock')
      .selectAll()
      .where('combo_pk', '=', comboPk)
      .where('date', '>=', from)
      .where('date', '<=', to)
      .orderBy('date')
      .orderBy('position'),
  );
}
