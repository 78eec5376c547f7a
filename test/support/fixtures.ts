import type { PedidoInput } from '../../src/orders/order.schemas.js';

let seq = 0;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A paid single-lot order for `data_uso` with `people` tickets; QRs are `${prefix}-1`, `${prefix}-2`, ... */
export function makeOrder(
  opts: {
    numero?: string;
    dataUso?: string;
    people?: number;
    prefix?: string;
    status?: 'pago' | 'cancelado' | 'reembolsado';
    tipo?: 'dayuse' | 'evento' | 'dayuse_sem_data' | 'dia_unico';
    adicionais?: PedidoInput['adicionais'];
    extraLots?: PedidoInput['lotes'];
  } = {},
): PedidoInput {
  seq += 1;
  const numero = opts.numero ?? `20261120-${String(seq).padStart(4, '0')}`;
  const prefix = opts.prefix ?? `QR${numero.replace('-', '')}`;
  const n = opts.people ?? 2;
  return {
    numero_pedido: numero,
    status: opts.status ?? 'pago',
    pago_em: '2026-11-20T15:00:00.000Z',
    origem: 'online',
    pagamento: {
      valores: {
        total_bruto: 100 * n,
        total_desconto: 0,
        total_pago: 100 * n,
        desconto_promocao: null,
        subtotal: 100 * n,
        desconto_pagamento: null,
        acrescimo_pagamento: null,
        valor_estornado: 0,
      },
    },
    cupom: null,
    cliente: {
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
    },
    lotes: [
      {
        ingresso_id: uuid(1),
        lote_mestre_id: uuid(2),
        categoria: 'adulto',
        nome_ingresso: 'Passaporte Dia',
        nome_lote: 'Adulto',
        tipo_ingresso: opts.tipo ?? 'dayuse',
        data_uso: opts.dataUso ?? '2026-11-21',
        valor_unitario: 100,
        dados: Array.from({ length: n }, (_, i) => ({
          qr_code: `${prefix}-${i + 1}`,
          Nome: `Pessoa ${i + 1}`,
          CPF: '',
          Email: `p${i + 1}@example.com`,
        })),
      },
      ...(opts.extraLots ?? []),
    ],
    ...(opts.adicionais ? { adicionais: opts.adicionais } : {}),
  };
}
