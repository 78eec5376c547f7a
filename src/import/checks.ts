import type { Combo, ComboAvailability } from '../combos/combo.schemas.js';
import { itemKey } from '../combos/combos.repo.js';
import type { Db } from '../db/open.js';
import { all, first } from '../db/query.js';
import type { Pedido } from '../orders/order.schemas.js';
import { orderQueries } from '../orders/orders.queries.js';

export type Report = (line: string) => void;

// The parser's strings may be slices of the chunk they were read from, and a kept slice keeps the
// whole chunk alive: remembering every QR of a file would then keep the file. A copy keeps 10 bytes.
const own = (s: string) => Buffer.from(s).toString();

interface PendingAvailability {
  index: number;
  comboId: string;
  dates: { index: number; items: { index: number; key: string; label: string }[] }[];
}

/**
 * Rules that span records: what the file repeats, and what clashes with the tenant's data already in
 * the database. Remembers only keys (QRs, order numbers, ids), never whole records.
 */
export class CrossChecks {
  private readonly numeros = new Map<string, number>();
  private readonly qrs = new Map<string, number>();
  private readonly additionalQrs = new Map<string, string>();
  private readonly comboIds = new Map<string, number>();
  private readonly comboSlugs = new Map<string, number>();
  private readonly comboItemKeys = new Map<string, string[]>();
  private readonly availability = new Map<string, number>();
  private readonly pending: PendingAvailability[] = [];
  private readonly clientIds = new Map<string, number>();

  constructor(
    private readonly db: Db,
    /** Undefined when the tenant does not exist yet: nothing in the database can clash. */
    private readonly tenantId: number | undefined,
    private readonly report: Report,
  ) {}

  pedido(p: Pedido, i: number): void {
    const at = `pedidos[${i}]`;
    const previous = this.numeros.get(p.numero_pedido);
    if (previous !== undefined) {
      this.report(`${at}.numero_pedido: pedido ${p.numero_pedido} repetido no arquivo (já em pedidos[${previous}])`);
      return;
    }
    this.numeros.set(own(p.numero_pedido), i);
    p.lotes.forEach((l, li) =>
      l.dados.forEach((d, di) => {
        const path = `${at}.lotes[${li}].dados[${di}].qr_code`;
        const seen = this.qrs.get(d.qr_code);
        if (seen !== undefined && seen !== i)
          this.report(`${path}: qr_code ${d.qr_code} repetido no arquivo (já em pedidos[${seen}])`);
        else this.qrs.set(own(d.qr_code), i);
        const owner = this.personQrOwner(d.qr_code);
        if (owner !== undefined && owner !== p.numero_pedido)
          this.report(`${path}: qr_code ${d.qr_code} já pertence ao pedido ${owner}`);
      }),
    );
    (p.adicionais ?? []).forEach((a, ai) => {
      if (!a.adicional_qr_code) return;
      const path = `${at}.adicionais[${ai}].adicional_qr_code`;
      const seen = this.additionalQrs.get(a.adicional_qr_code);
      if (seen !== undefined)
        this.report(`${path}: adicional_qr_code ${a.adicional_qr_code} repetido no arquivo (já em ${seen})`);
      else this.additionalQrs.set(own(a.adicional_qr_code), `${at}.adicionais[${ai}]`);
      const owner = this.additionalQrOwner(a.adicional_qr_code);
      if (owner !== undefined && owner !== p.numero_pedido)
        this.report(`${path}: adicional_qr_code ${a.adicional_qr_code} já pertence ao pedido ${owner}`);
    });
  }

  combo(c: Combo, i: number): void {
    const at = `combos[${i}]`;
    const sameId = this.comboIds.get(c.id);
    if (sameId !== undefined)
      return this.report(`${at}.id: combo ${c.id} repetido no arquivo (já em combos[${sameId}])`);
    this.comboIds.set(own(c.id), i);
    const sameSlug = this.comboSlugs.get(c.slug);
    if (sameSlug !== undefined)
      this.report(`${at}.slug: slug ${c.slug} repetido no arquivo (já em combos[${sameSlug}])`);
    else this.comboSlugs.set(own(c.slug), i);
    this.comboItemKeys.set(
      own(c.id),
      c.itens.map((item) => own(itemKey(item))),
    );
  }

  disponibilidade(a: ComboAvailability, i: number): void {
    const previous = this.availability.get(a.combo_id);
    if (previous !== undefined)
      return this.report(
        `disponibilidade[${i}].combo_id: disponibilidade do combo ${a.combo_id} repetida no arquivo (já em disponibilidade[${previous}])`,
      );
    this.availability.set(own(a.combo_id), i);
    // Resolved at the end: the combos may come after the availability in the file.
    this.pending.push({
      index: i,
      comboId: own(a.combo_id),
      dates: a.dates.map((d, di) => ({
        index: di,
        items: d.items_availability.map((e, ei) => ({
          index: ei,
          key: own(itemKey(e)),
          label: own(`${e.tipo_ingresso_nome} / ${e.lote_nome}`),
        })),
      })),
    });
  }

  cliente(id: string, i: number): void {
    const previous = this.clientIds.get(id);
    if (previous !== undefined)
      this.report(`clientes[${i}].id: cliente ${id} repetido no arquivo (já em clientes[${previous}])`);
    else this.clientIds.set(own(id), i);
  }

  /** Rules that need the whole file: availability of combos that may come later in it. */
  finish(): void {
    for (const p of this.pending) {
      const keys = this.comboItemKeys.get(p.comboId) ?? this.storedComboItems(p.comboId);
      if (!keys) {
        this.report(
          `disponibilidade[${p.index}].combo_id: combo ${p.comboId} desconhecido (não está no arquivo nem no banco)`,
        );
        continue;
      }
      for (const d of p.dates) {
        const taken = new Set<number>();
        for (const e of d.items) {
          const position = keys.findIndex((key, pos) => key === e.key && !taken.has(pos));
          if (position < 0)
            this.report(
              `disponibilidade[${p.index}].dates[${d.index}].items_availability[${e.index}]: item ${e.label} não faz parte do combo ${p.comboId} (ou está repetido nesta data)`,
            );
          else taken.add(position);
        }
      }
    }
  }

  // The same compiled statements upsertOrder uses to refuse a QR owned by another order.
  private personQrOwner(qr: string): string | undefined {
    if (this.tenantId === undefined) return undefined;
    return orderQueries.personClash.get(this.db, { tenantId: this.tenantId, qr })?.numero_pedido;
  }

  private additionalQrOwner(qr: string): string | undefined {
    if (this.tenantId === undefined) return undefined;
    return orderQueries.additionalClash.get(this.db, { tenantId: this.tenantId, qr })?.numero_pedido;
  }

  private storedComboItems(comboId: string): string[] | undefined {
    if (this.tenantId === undefined) return undefined;
    const combo = first(
      this.db,
      this.db.kysely
        .selectFrom('combos')
        .select('id')
        .where('tenant_id', '=', this.tenantId)
        .where('combo_id', '=', comboId),
    );
    if (!combo) return undefined;
    return all(
      this.db,
      this.db.kysely
        .selectFrom('combo_items')
        .select(['tipo_ingresso_nome', 'lote_nome'])
        .where('combo_pk', '=', combo.id)
        .orderBy('position'),
    ).map(itemKey);
  }
}
