import type { PedidoInput } from '../../src/orders/order.schemas.js';
import { makeClient } from '../clients/client-data.js';
import { uuid } from '../combos/combo-data.js';
import { makeOrder } from '../support/fixtures.js';

// The look-alike data of the tenant isolation sweep (tenant-isolation.test.ts): identifiers that
// exist in both tenants (TWIN), in outro only (O), nowhere (NX), parque's own (P), and the MARKERS
// of outro that a parque key must never see.

export const TODAY = '2026-11-21';
export const OUTRO_ONLY_DATE = '2026-11-25';

/** Identifiers that exist in both tenants: they must resolve to parque's record. */
export const TWIN = {
  numero: '20261121-0001',
  qr1: 'TWIN-QR-1',
  qr2: 'TWIN-QR-2',
  additional: 'TWINADD0000001',
  comboId: uuid(1),
  comboSlug: 'combo-familia',
  clientId: 'c-twin',
  clientEmail: 'gemeo@example.com',
  clientCpf: '33344455566',
  lane: 'p1',
};

/** Identifiers of outro only. */
export const O = {
  numeroGroup: '20261121-0777', // three people, all checked in by outro (one reversed)
  numeroAdd: '20261121-0778', // a person and two additionals
  numeroCancelled: '20261121-0779',
  numeroFuture: '20261121-0780',
  numeroHidden: '20261121-0781', // never sent by parque
  qrGroup1: 'OQR-GRP-1',
  qrGroup2: 'OQR-GRP-2',
  qrGroup3: 'OQR-GRP-3',
  qrTwinOrder3: 'OQR-TWIN-3',
  qrAdd: 'OQR-ADD-1',
  qrCancelled: 'OQR-CANC-1',
  qrFuture: 'OQR-FUT-1',
  qrHidden: 'OQR-HID-1',
  additional: 'OADD0000000777',
  comboId: uuid(777),
  comboSlug: 'combo-secreto-xerxes',
  comboInactiveId: uuid(778),
  comboInactiveSlug: 'combo-velho-xerxes',
  clientIds: ['oc-zx-001', 'oc-zx-002'],
  clientCpf: '98765432100',
  clientCpf2: '98765432199',
  personCpf: '55566677788',
  cupom: 'CUPOMXERXES',
};

/** Identifiers that exist nowhere, of the same shape as outro's. */
export const NX = {
  qr: 'NX-QR-000001',
  group: '20261121-0999',
  numero: '20261121-0998',
  additional: 'NXAD0000000999',
  comboId: uuid(999),
  comboSlug: 'combo-nao-existe',
  cpf: '00000000191',
};

/** Parque's own. */
export const P = {
  numeros: [TWIN.numero, '20261121-0002', '20261121-0003'],
  qrGroup1: 'PQR-GRP-1',
  qrOwn: 'PQR-3-1',
  additional: 'PADD0000000001',
  name: 'Paula Parque',
  email: 'paula@parque.example',
};

/** Everything of outro that a parque key must never see (compared case-insensitively). */
export const MARKERS = [
  'xerxes', // every name, e-mail, slug, terminal, operator, key name, lane, sync message of outro
  'Outro Parque',
  ...[O.numeroGroup, O.numeroAdd, O.numeroCancelled, O.numeroFuture, O.numeroHidden],
  ...[O.qrGroup1, O.qrGroup2, O.qrGroup3, O.qrTwinOrder3, O.qrAdd, O.qrCancelled, O.qrFuture, O.qrHidden, O.additional],
  ...[O.comboId, O.comboInactiveId, O.comboSlug, O.comboInactiveSlug],
  ...O.clientIds,
  ...[O.clientCpf, O.clientCpf2, O.personCpf, O.cupom],
];

type Person = { qr: string; nome: string; cpf?: string };
type Cliente = { nome: string; sobrenome: string; email: string; cpf: string };

export function order(
  numero: string,
  people: Person[],
  cliente: Cliente,
  opts: Parameters<typeof makeOrder>[0] & { cupom?: PedidoInput['cupom'] } = {},
): PedidoInput {
  const o = makeOrder({ ...opts, numero, people: people.length });
  o.lotes[0]!.dados = people.map((p) => ({
    qr_code: p.qr,
    Nome: p.nome,
    CPF: p.cpf ?? '',
    Email: `${p.qr.toLowerCase()}@mail.example`,
  }));
  o.cliente = { ...o.cliente!, ...cliente };
  if (opts.cupom) o.cupom = opts.cupom;
  return o;
}
export const additional = (id: string, nome: string, qr: string, quantidade: number) => ({
  adicional_id: id,
  nome,
  quantidade,
  preco_unitario: 10,
  subtotal: 10 * quantidade,
  codigo_integracao: '',
  adicional_qr_code: qr,
});

const parqueCliente: Cliente = { nome: 'Paula', sobrenome: 'Parque', email: P.email, cpf: '11122233396' };
const outroCliente: Cliente = {
  nome: 'Xerxes',
  sobrenome: 'Cliente',
  email: 'cliente.xerxes@secreto.example',
  cpf: O.clientCpf,
};

export const parqueOrders = [
  order(
    TWIN.numero,
    [
      { qr: TWIN.qr1, nome: 'Paula Parque' },
      { qr: TWIN.qr2, nome: 'Paulo Parque' },
    ],
    parqueCliente,
  ),
  order(
    P.numeros[1]!,
    [
      { qr: P.qrGroup1, nome: 'Pedro Parque' },
      { qr: 'PQR-GRP-2', nome: 'Priscila Parque' },
    ],
    parqueCliente,
    {
      adicionais: [
        additional('ad-p1', 'Pipoca Parque', P.additional, 1),
        additional('ad-p2', 'Sorvete Parque', TWIN.additional, 1),
      ],
    },
  ),
  order(P.numeros[2]!, [{ qr: P.qrOwn, nome: 'Patrícia Parque' }], parqueCliente),
];

export const outroOrders = [
  // The twin order: same number and two of the same QRs, one more person.
  order(
    TWIN.numero,
    [
      { qr: TWIN.qr1, nome: 'Xerxes Um', cpf: O.personCpf },
      { qr: TWIN.qr2, nome: 'Xerxes Dois' },
      { qr: O.qrTwinOrder3, nome: 'Xerxes Três' },
    ],
    outroCliente,
    {
      cupom: { codigo: O.cupom, nome: 'Cupom Xerxes' },
    },
  ),
  order(
    O.numeroGroup,
    [
      { qr: O.qrGroup1, nome: 'Xerxes Grupo 1' },
      { qr: O.qrGroup2, nome: 'Xerxes Grupo 2' },
      { qr: O.qrGroup3, nome: 'Xerxes Grupo 3' },
    ],
    outroCliente,
  ),
  order(O.numeroAdd, [{ qr: O.qrAdd, nome: 'Xerxes Adicional' }], outroCliente, {
    adicionais: [
      additional('ad-o1', 'Pipoca Xerxes', O.additional, 2),
      additional('ad-o2', 'Sorvete Xerxes', TWIN.additional, 1),
    ],
  }),
  order(O.numeroCancelled, [{ qr: O.qrCancelled, nome: 'Xerxes Cancelado' }], outroCliente, { status: 'cancelado' }),
  order(O.numeroFuture, [{ qr: O.qrFuture, nome: 'Xerxes Futuro' }], outroCliente, { dataUso: OUTRO_ONLY_DATE }),
  order(O.numeroHidden, [{ qr: O.qrHidden, nome: 'Xerxes Oculto' }], outroCliente),
];

export const parqueClients = [
  makeClient('pc-001', {
    nome: 'Paula',
    sobrenome: 'Parque',
    email: P.email,
    cpf: '11122233396',
    created_at: '2026-11-01T12:00:00.000Z',
    ultimo_login: '2026-11-20T10:00:00.000Z',
  }),
  makeClient('pc-002', {
    nome: 'Pedro',
    sobrenome: 'Parque',
    email: 'pedro@parque.example',
    cpf: '22233344405',
    created_at: '2026-11-02T12:00:00.000Z',
  }),
  makeClient(TWIN.clientId, {
    nome: 'Gêmeo',
    sobrenome: 'Parque',
    email: TWIN.clientEmail,
    cpf: TWIN.clientCpf,
    created_at: '2026-11-10T12:00:00.000Z',
  }),
];
export const outroClients = [
  makeClient(O.clientIds[0]!, {
    nome: 'Xerxes',
    sobrenome: 'Primeiro',
    email: 'xerxes.um@secreto.example',
    cpf: O.clientCpf,
    created_at: '2026-11-20T12:00:00.000Z',
    ultimo_login: '2026-11-21T09:00:00.000Z',
  }),
  makeClient(O.clientIds[1]!, {
    nome: 'Zoe',
    sobrenome: 'Xerxes',
    email: 'zoe.xerxes@secreto.example',
    cpf: O.clientCpf2,
    created_at: '2026-11-20T13:00:00.000Z',
  }),
  makeClient(TWIN.clientId, {
    nome: 'Gêmeo',
    sobrenome: 'Xerxes',
    email: TWIN.clientEmail,
    cpf: TWIN.clientCpf,
    created_at: '2026-11-21T12:00:00.000Z',
  }),
];
