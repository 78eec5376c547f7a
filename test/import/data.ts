import type { ClienteRecordInput } from '../../src/clients/client.schemas.js';
import type { ComboAvailabilityInput, ComboInput } from '../../src/combos/combo.schemas.js';
import { makeOrder } from '../support/fixtures.js';

export const COMBO_ID = '00000000-0000-4000-a000-000000000001';

export function combo(over: Partial<ComboInput> = {}): ComboInput {
  return {
    id: COMBO_ID,
    nome: 'Combo Casal',
    slug: 'combo-casal',
    descricao: '',
    preco_combo: 180,
    preco_original: 200,
    tipo_desconto: 'preco_fixo',
    modo_qrcode: 'por_pessoa',
    requer_data: true,
    destaque: false,
    max_por_pedido: null,
    itens: [
      {
        tipo_ingresso_id: 'tipo-1',
        tipo_ingresso_nome: 'Passaporte Dia',
        lote_nome: 'Adulto',
        categoria_lote_id: 'cat-1',
        quantidade: 2,
        preco_unitario: 100,
      },
    ],
    ...over,
  };
}

export function availability(comboId = COMBO_ID, dates = ['2026-11-21', '2026-11-22']): ComboAvailabilityInput {
  return {
    combo_id: comboId,
    dates: dates.map((date) => ({
      date,
      items_availability: [
        { tipo_ingresso_nome: 'Passaporte Dia', lote_nome: 'Adulto', quantidade_necessaria: 2, estoque_disponivel: 40 },
      ],
    })),
  };
}

export function client(n: number): ClienteRecordInput {
  return {
    id: `cli-${n}`,
    nome: `Cliente ${n}`,
    sobrenome: 'Teste',
    email: `c${n}@example.com`,
    cpf: '12345678909',
    created_at: '2026-11-01T12:00:00.000Z',
  };
}

/** `n` paid orders for 2026-11-21 with distinct numbers and QRs: `${tag}-<i>-1`, `${tag}-<i>-2`. */
export function orders(n: number, tag = 'QA') {
  return Array.from({ length: n }, (_, i) =>
    makeOrder({ numero: `20261121-${String(i + 1).padStart(4, '0')}`, prefix: `${tag}-${i + 1}` }),
  );
}
