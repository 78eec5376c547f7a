import {
  availabilitySchema,
  comboSchema,
  type ComboAvailabilityInput,
  type ComboInput,
} from '../../src/combos/combo.schemas.js';
import { upsertAvailability, upsertCombo } from '../../src/combos/combos.repo.js';
import type { TestBox } from '../support/box.js';

export const uuid = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;

/** A two-item family combo: 2 adults + 1 child, R$ 250,00 instead of R$ 290,00. */
export function makeCombo(n: number, over: Partial<ComboInput> = {}): ComboInput {
  return {
    id: uuid(n),
    nome: `Combo ${n}`,
    slug: `combo-${n}`,
    descricao: '<p>Diversão em família</p>',
    preco_combo: 250,
    preco_original: 290,
    economia: { valor: 40, percentual: 13.79 },
    tipo_desconto: 'preco_fixo',
    modo_qrcode: 'unico',
    requer_data: true,
    destaque: false,
    max_por_pedido: 4,
    total_ingressos: 3,
    itens_resumo: '2 Adultos + 1 Infantil',
    itens: [
      {
        tipo_ingresso_id: uuid(901),
        tipo_ingresso_nome: 'Passaporte Dia',
        lote_nome: 'Adulto',
        categoria_lote_id: uuid(911),
        quantidade: 2,
        preco_unitario: 100,
      },
      {
        tipo_ingresso_id: uuid(901),
        tipo_ingresso_nome: 'Passaporte Dia',
        lote_nome: 'Infantil',
        categoria_lote_id: uuid(912),
        quantidade: 1,
        preco_unitario: 90,
      },
    ],
    ...over,
  };
}

/** Stock per date for makeCombo's two items: [adults, children] available. */
export function makeAvailability(comboId: string, stock: Record<string, [number, number]>): ComboAvailabilityInput {
  return {
    combo_id: comboId,
    dates: Object.entries(stock).map(([date, [adults, children]]) => ({
      date,
      items_availability: [
        {
          tipo_ingresso_nome: 'Passaporte Dia',
          lote_nome: 'Adulto',
          quantidade_necessaria: 2,
          estoque_disponivel: adults,
        },
        {
          tipo_ingresso_nome: 'Passaporte Dia',
          lote_nome: 'Infantil',
          quantidade_necessaria: 1,
          estoque_disponivel: children,
        },
      ],
    })),
  };
}

/** Stores combos as `gate import` would: parsed by the shared schema, upserted in one transaction. */
export function seedCombos(box: TestBox, combos: ComboInput[], tenantId = box.tenantId) {
  const { sqlite } = box.db;
  sqlite.transaction(() =>
    combos.forEach((c) => upsertCombo(box.db, tenantId, comboSchema.parse(c), box.clock.nowIso())),
  )();
}

export function seedAvailability(box: TestBox, availability: ComboAvailabilityInput, tenantId = box.tenantId) {
  const { sqlite } = box.db;
  sqlite.transaction(() =>
    upsertAvailability(box.db, tenantId, availabilitySchema.parse(availability), box.clock.nowIso()),
  )();
}

export const comboPaths = ['/api/integration', '/v1/integration'] as const;
