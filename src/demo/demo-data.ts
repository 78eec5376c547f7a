import type { ClienteRecordInput } from '../clients/client.schemas.js';
import { addDays } from '../clock.js';
import type { ComboAvailabilityInput, ComboInput } from '../combos/combo.schemas.js';
import { fromCents, paymentTotals } from '../orders/money.js';
import type { PedidoInput } from '../orders/order.schemas.js';

// The demo park's data in the cloud's shapes, so it goes through the same schemas and upserts as an
// import. Ids are fixed and order numbers derive from the date, so seeding again the same day
// updates rather than duplicates.

const uuid = (n: number) => `d3e00000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PASSAPORTE = { ingresso_id: uuid(1), nome_ingresso: 'Passaporte Dia', tipo_ingresso: 'dayuse' as const };
const ADULTO = {
  ...PASSAPORTE,
  lote_mestre_id: uuid(2),
  categoria: 'adulto' as const,
  nome_lote: 'Adulto',
  valor_unitario: 89.9,
};
const INFANTIL = {
  ...PASSAPORTE,
  lote_mestre_id: uuid(3),
  categoria: 'infantil' as const,
  nome_lote: 'Infantil',
  valor_unitario: 59.9,
};
export const DEMO_COMBO_ID = uuid(100);

const compact = (date: string) => date.replaceAll('-', '');

interface Buyer {
  nome: string;
  sobrenome: string;
  email: string;
  cpf: string;
}
const BUYERS: Buyer[] = [
  { nome: 'Ana', sobrenome: 'Souza', email: 'ana.souza@example.com', cpf: '52998224725' },
  { nome: 'Bruno', sobrenome: 'Lima', email: 'bruno.lima@example.com', cpf: '11144477735' },
  { nome: 'Carla', sobrenome: 'Mendes', email: 'carla.mendes@example.com', cpf: '39053344705' },
];

interface OrderSpec {
  seq: number;
  date: string;
  buyer: Buyer;
  adults: string[];
  children?: string[];
  status?: 'pago' | 'cancelado';
  origem?: 'online' | 'balcao';
  pix?: boolean;
  adicionais?: NonNullable<PedidoInput['adicionais']>;
}

/** The numero_pedido and the QR codes of an order: `DM<YYYYMMDD><seq>-<n>`. */
export const demoNumero = (date: string, seq: number) => `${compact(date)}-${String(seq).padStart(4, '0')}`;
const qr = (date: string, seq: number, n: number) => `DM${compact(date)}${String(seq).padStart(4, '0')}-${n}`;

function order(s: OrderSpec, paidAt: string): PedidoInput {
  let n = 0;
  const person = (nome: string) => ({
    qr_code: qr(s.date, s.seq, ++n),
    Nome: nome,
    Email: `${nome.split(' ')[0]!.toLowerCase()}@example.com`,
  });
  const lotes: PedidoInput['lotes'] = [{ ...ADULTO, data_uso: s.date, dados: s.adults.map(person) }];
  if (s.children?.length) lotes.push({ ...INFANTIL, data_uso: s.date, dados: s.children.map(person) });
  const ticketsCents = s.adults.length * 8990 + (s.children?.length ?? 0) * 5990;
  const extrasCents = (s.adicionais ?? []).reduce((sum, a) => sum + Math.round(a.subtotal * 100), 0);
  const totalBruto = ticketsCents + extrasCents;
  const pix = s.pix ? Math.round(totalBruto * 0.05) : 0;
  const totals = paymentTotals({
    totalBruto,
    descontoPromocao: 0,
    descontoPagamento: pix,
    acrescimoPagamento: 0,
    valorEstornado: 0,
  });
  return {
    numero_pedido: demoNumero(s.date, s.seq),
    status: s.status ?? 'pago',
    pago_em: paidAt,
    origem: s.origem ?? 'online',
    pagamento: {
      valores: {
        total_bruto: fromCents(totalBruto),
        total_desconto: fromCents(totals.totalDesconto),
        total_pago: fromCents(totals.totalPago),
        desconto_promocao: null,
        subtotal: fromCents(totals.subtotal),
        desconto_pagamento: s.pix ? { nome: 'Desconto Pix', forma: 'pix', percentual: 5, valor: fromCents(pix) } : null,
        acrescimo_pagamento: null,
        valor_estornado: 0,
      },
    },
    cupom: null,
    cliente: {
      ...s.buyer,
      telefone: '11988887777',
      whatsapp: '11988887777',
      data_nascimento: '1988-03-14',
      endereco: null,
    },
    lotes,
    ...(s.adicionais ? { adicionais: s.adicionais } : {}),
  };
}

/** The demo orders: paid ones for today (one with additionals), one for tomorrow, one cancelled. */
export function demoOrders(today: string, nowIso: string): PedidoInput[] {
  const tomorrow = addDays(today, 1);
  const [ana, bruno, carla] = BUYERS as [Buyer, Buyer, Buyer];
  const estacionamento = {
    adicional_id: uuid(50),
    nome: 'Estacionamento',
    quantidade: 1,
    preco_unitario: 30,
    subtotal: 30,
    pessoa_ingresso_id: null,
    combo_id: null,
    combo_item_id: null,
    is_brinde: false,
    codigo_integracao: 'EST-01',
    adicional_qr_code: `AD${compact(today)}0002`,
  };
  return [
    order({ seq: 1, date: today, buyer: ana, adults: ['Ana Souza', 'Pedro Souza'], children: ['Lia Souza'] }, nowIso),
    order(
      {
        seq: 2,
        date: today,
        buyer: bruno,
        adults: ['Bruno Lima', 'Marta Lima'],
        pix: true,
        adicionais: [estacionamento],
      },
      nowIso,
    ),
    order(
      {
        seq: 3,
        date: today,
        buyer: carla,
        adults: ['Carla Mendes', 'Rui Mendes', 'Eva Mendes'],
        children: ['Téo Mendes'],
        origem: 'balcao',
      },
      nowIso,
    ),
    order({ seq: 4, date: tomorrow, buyer: ana, adults: ['Ana Souza', 'Pedro Souza'] }, nowIso),
    order({ seq: 5, date: today, buyer: bruno, adults: ['Bruno Lima', 'João Lima'], status: 'cancelado' }, nowIso),
  ];
}

export function demoCombo(): ComboInput {
  return {
    id: DEMO_COMBO_ID,
    nome: 'Combo Família',
    slug: 'combo-familia',
    descricao: '<p>Dois adultos e duas crianças, com desconto.</p>',
    preco_combo: 259.9,
    preco_original: 299.6,
    tipo_desconto: 'preco_fixo',
    modo_qrcode: 'unico',
    requer_data: true,
    destaque: true,
    max_por_pedido: 4,
    itens: [
      {
        tipo_ingresso_id: ADULTO.ingresso_id,
        tipo_ingresso_nome: 'Passaporte Dia',
        lote_nome: 'Adulto',
        categoria_lote_id: ADULTO.lote_mestre_id,
        quantidade: 2,
        preco_unitario: 89.9,
      },
      {
        tipo_ingresso_id: INFANTIL.ingresso_id,
        tipo_ingresso_nome: 'Passaporte Dia',
        lote_nome: 'Infantil',
        categoria_lote_id: INFANTIL.lote_mestre_id,
        quantidade: 2,
        preco_unitario: 59.9,
      },
    ],
  };
}

/** Stock for the combo's items over the next `days` days, thinning out towards the weekend rush. */
export function demoAvailability(today: string, days = 14): ComboAvailabilityInput {
  return {
    combo_id: DEMO_COMBO_ID,
    dates: Array.from({ length: days }, (_, i) => ({
      date: addDays(today, i),
      items_availability: [
        {
          tipo_ingresso_nome: 'Passaporte Dia',
          lote_nome: 'Adulto',
          quantidade_necessaria: 2,
          estoque_disponivel: Math.max(0, 200 - i * 15),
        },
        {
          tipo_ingresso_nome: 'Passaporte Dia',
          lote_nome: 'Infantil',
          quantidade_necessaria: 2,
          estoque_disponivel: Math.max(0, 120 - i * 10),
        },
      ],
    })),
  };
}

export function demoClients(): ClienteRecordInput[] {
  return BUYERS.map((b, i) => ({
    id: `demo-cliente-${i + 1}`,
    ...b,
    data_nascimento: '1988-03-14',
    telefone: '11988887777',
    whatsapp: '11988887777',
    endereco: {
      cep: '01001000',
      rua: 'Praça da Sé',
      numero: String(100 + i),
      complemento: '',
      bairro: 'Sé',
      cidade: 'São Paulo',
      estado: 'SP',
    },
    ultimo_login: null,
  }));
}
