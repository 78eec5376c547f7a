// The example order of /docs (the shapes are order.answers.ts's): one order that the tests check against them.

// One order of the examples: two adults on 2026-11-21, two sodas, paid by pix with 5% off.
export const EXAMPLE_NUMERO = '20261121-0042';
export const EXAMPLE_QRS = ['a1b2c3d4-0000-4000-8000-000000000001', 'a1b2c3d4-0000-4000-8000-000000000002'] as const;
export const EXAMPLE_ADDITIONAL_QR = 'AD7K2M9Q4X1B3C';
const CHECKIN_AT = '2026-11-21T12:31:07.000Z';
const SYNCED_AT = '2026-11-20T18:00:00.000Z';

/** The buyer in the examples: also the client listing's example (src/clients/clients.docs.ts). */
export const exampleCliente = {
  nome: 'Maria',
  sobrenome: 'Silva',
  email: 'maria@example.com',
  cpf: '12345678909',
  data_nascimento: '1990-05-01',
  telefone: '11999990000',
  whatsapp: '11999990000',
  endereco: {
    cep: '01001000',
    rua: 'Praça da Sé',
    numero: '1',
    complemento: '',
    bairro: 'Sé',
    cidade: 'São Paulo',
    estado: 'SP',
  },
};

const exampleLot = {
  ingresso_id: '0f6c7d3a-1b2e-4c5d-8e9f-a0b1c2d3e401',
  lote_mestre_id: 'a1d2e3f4-5a6b-4c7d-8e9f-0a1b2c3d4e01',
  categoria: 'adulto',
  nome_ingresso: 'Passaporte Dia',
  nome_lote: 'Adulto',
  tipo_ingresso: 'dayuse',
  data_uso: '2026-11-21',
  valor_unitario: 100,
  sincronizado: true,
  sincronizado_em: SYNCED_AT,
  checkin_realizado: false,
  checkin_em: null as string | null,
  dados: [
    { qr_code: EXAMPLE_QRS[0], Nome: 'Maria Silva', CPF: '12345678909', Email: 'maria@example.com' },
    { qr_code: EXAMPLE_QRS[1], Nome: 'João Silva' },
  ],
};

/** An order of the vouchers listing. */
export const examplePedido = {
  numero_pedido: EXAMPLE_NUMERO,
  status: 'pago',
  pago_em: '2026-11-18T15:20:00.000Z',
  origem: 'online',
  pagamento: {
    valores: {
      total_bruto: 212,
      total_desconto: 10.6,
      total_pago: 201.4,
      desconto_promocao: null,
      subtotal: 212,
      desconto_pagamento: { nome: 'Desconto no Pix', forma: 'pix', percentual: 5, valor: 10.6 },
      acrescimo_pagamento: null,
      valor_estornado: 0,
    },
  },
  cupom: null,
  cliente: exampleCliente,
  lotes: [exampleLot],
  total_pessoas: 2,
  total_lotes: 1,
  sincronizado: true,
  adicionais: [
    {
      adicional_id: '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e01',
      nome: 'Refrigerante lata',
      quantidade: 2,
      preco_unitario: 6,
      subtotal: 12,
      pessoa_ingresso_id: null,
      combo_id: null,
      combo_item_id: null,
      is_brinde: false,
      codigo_integracao: 'REF-350',
      adicional_qr_code: EXAMPLE_ADDITIONAL_QR,
    },
  ],
};

const cliente = { nome: examplePedido.cliente.nome, email: examplePedido.cliente.email };
/** The example lot after the first person's check-in (`checkedIn` people entered at CHECKIN_AT). */
const lotAfterCheckin = (checkedIn: number) => ({
  ...exampleLot,
  checkin_realizado: checkedIn === exampleLot.dados.length,
  checkin_em: checkedIn > 0 ? CHECKIN_AT : null,
  checkin_dispositivo: checkedIn > 0 ? 'catraca-1' : null,
  checkin_operador: checkedIn > 0 ? 'Joana' : null,
  quantidade: exampleLot.dados.length,
  subtotal: exampleLot.valor_unitario * exampleLot.dados.length,
});

export const EXAMPLE_CHECKIN_AT = CHECKIN_AT;

/** The example order in a single-QR check-in answer, `checkedIn` people in. */
export const exampleCheckinPedido = (checkedIn: number) => ({
  ...examplePedido,
  cliente,
  lotes: [lotAfterCheckin(checkedIn)],
});

/** The example order in a combo check-in answer, everyone in. */
export const exampleComboPedido = () => {
  const { dados, ...lot } = lotAfterCheckin(exampleLot.dados.length);
  return {
    numero_pedido: EXAMPLE_NUMERO,
    status: examplePedido.status,
    pago_em: examplePedido.pago_em,
    origem: examplePedido.origem,
    total: examplePedido.pagamento.valores.total_pago,
    cliente,
    lotes: [
      {
        ...lot,
        pessoas: dados.map((d) => ({
          qr_code: d.qr_code,
          nome: d.Nome,
          checkin_realizado: true,
          checkin_em: CHECKIN_AT,
          checkin_dispositivo: 'catraca-1',
          checkin_operador: 'Joana',
        })),
      },
    ],
    total_pessoas: 2,
    adicionais: examplePedido.adicionais.map(({ nome, quantidade, preco_unitario, subtotal }) => ({
      nome,
      quantidade,
      preco_unitario,
      subtotal,
    })),
  };
};

/** The example order in an order-mode check-in answer, everyone in. */
export const exampleOrderModePedido = () => ({
  numero_pedido: EXAMPLE_NUMERO,
  status: examplePedido.status,
  cliente,
  lotes: [lotAfterCheckin(exampleLot.dados.length)],
});

/** A reversed person of the example order. */
export const exampleReversed = (i: 0 | 1) => ({
  qr_code: EXAMPLE_QRS[i],
  nome: exampleLot.dados[i]!.Nome,
  estornado_em: '2026-11-21T12:45:00.000Z',
  estorno_dispositivo: 'catraca-1',
  estorno_operador: 'Joana',
});
