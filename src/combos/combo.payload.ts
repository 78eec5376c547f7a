import { addDays } from '../clock.js';
import { fromCents } from '../orders/money.js';
import type { AvailabilityDate, ServedCombo } from './combo.answers.js';
import type { ComboItemRow, ComboRow, ComboStockRow } from './combos.repo.js';

// The combo payloads of 2.8 and 4.5, shaped from stored rows (as orders/order.payload.ts does for orders).

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The combo of 2.8 as served: money in reais with 2 decimals, every item field. */
export function comboPayload(c: ComboRow, items: readonly ComboItemRow[]): ServedCombo {
  return {
    id: c.combo_id,
    nome: c.nome,
    slug: c.slug,
    descricao: c.descricao,
    preco_combo: fromCents(c.preco_combo),
    preco_original: fromCents(c.preco_original),
    economia: { valor: fromCents(c.economia_valor), percentual: round2(c.economia_percentual) },
    tipo_desconto: c.tipo_desconto as ServedCombo['tipo_desconto'],
    modo_qrcode: c.modo_qrcode as ServedCombo['modo_qrcode'],
    requer_data: c.requer_data === 1,
    destaque: c.destaque === 1,
    max_por_pedido: c.max_por_pedido,
    total_ingressos: c.total_ingressos,
    itens_resumo: c.itens_resumo,
    itens: items.map((i) => ({
      tipo_ingresso_id: i.tipo_ingresso_id,
      tipo_ingresso_nome: i.tipo_ingresso_nome,
      lote_nome: i.lote_nome,
      categoria_lote_id: i.categoria_lote_id,
      quantidade: i.quantidade,
      preco_unitario: fromCents(i.preco_unitario),
    })),
  };
}

/**
 * One entry per calendar date of the range. Stock is shared, so a date sells as many combos as its
 * scarcest item allows; an item without a stock row for the date counts as stock 0.
 */
export function availabilityDates(
  items: readonly ComboItemRow[],
  stock: readonly ComboStockRow[],
  from: string,
  to: string,
) {
  const byDate = new Map<string, Map<number, number>>();
  for (const s of stock) {
    let row = byDate.get(s.date);
    if (!row) byDate.set(s.date, (row = new Map()));
    row.set(s.position, s.estoque_disponivel);
  }
  const dates: AvailabilityDate[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const items_availability = items.map((i) => ({
      tipo_ingresso_nome: i.tipo_ingresso_nome,
      lote_nome: i.lote_nome,
      quantidade_necessaria: i.quantidade,
      estoque_disponivel: byDate.get(date)?.get(i.position) ?? 0,
    }));
    const perItem = items_availability.map((x) => Math.floor(x.estoque_disponivel / x.quantidade_necessaria));
    const min_stock = perItem.length === 0 ? 0 : Math.max(0, Math.min(...perItem));
    dates.push({ date, available: min_stock > 0, min_stock, items_availability });
  }
  return dates;
}
