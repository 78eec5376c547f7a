import { describe, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import {
  PARK_AREA,
  personCheckin,
  personEntry,
  personExit,
  personReversal,
  standing,
  type Calendar,
  type MovePolicy,
  type PersonFacts,
  type PresenceFacts,
} from '../../src/checkin/rules/index.js';

// The pure check-in rules (src/checkin/rules/) over the cross product of what a person's ticket can
// be: ticket type × its date against today × order status × checked in / reversed / never × the day
// of that check-in × the door's movement policy (re-entry, exit without entry, capacity) × where the
// person stands in the door's area. Each row is run through the rules as a check-in, a reversal, an
// entry and an exit, and compared with the oracle below: the rules as docs/api.md and docs/lanes.md
// state them, written case by case, not derived from the implementation.

const TODAY = '2026-11-20';
const cal: Calendar = { today: TODAY, dayOf: createClock('America/Sao_Paulo').localDate };
/** Park-local instants: 10:00 today; 23:00 of the day before, which is already the 20th in UTC. */
const INSTANT = { today: '2026-11-20T13:00:00.000Z', earlier: '2026-11-20T02:00:00.000Z' } as const;
const USE_DATE = { past: '2026-11-19', today: TODAY, future: '2026-11-21' } as const;
const CODE = 'QR-TABELA';

const ticketTypes = ['dayuse', 'dayuse_sem_data', 'evento', 'dia_unico'] as const;
const dateRelations = ['past', 'today', 'future'] as const;
const statuses = ['pago', 'cancelado', 'reembolsado'] as const;
const states = ['never', 'checked_in', 'reversed'] as const;
const days = ['today', 'earlier'] as const;
const reentries = ['nao', 'mesmo_dia'] as const;
const exitsWithoutEntry = ['liberar', 'negar'] as const;
const capacities = ['none', 'room', 'full'] as const;
const presences = ['inside_today', 'left_today', 'inside_yesterday', 'no_row'] as const;
const areas = [PARK_AREA, 'piscina'] as const;

interface Row {
  ticketType: (typeof ticketTypes)[number];
  date: (typeof dateRelations)[number];
  status: (typeof statuses)[number];
  state: (typeof states)[number];
  day: (typeof days)[number];
  reentrada: (typeof reentries)[number];
  saidaSemEntrada: (typeof exitsWithoutEntry)[number];
  capacity: (typeof capacities)[number];
  presence: (typeof presences)[number];
  area: (typeof areas)[number];
}

function* crossProduct(): Generator<Row> {
  for (const ticketType of ticketTypes)
    for (const date of dateRelations)
      for (const status of statuses)
        for (const state of states)
          for (const day of days)
            for (const reentrada of reentries)
              for (const saidaSemEntrada of exitsWithoutEntry)
                for (const capacity of capacities)
                  for (const presence of presences)
                    for (const area of areas)
                      yield {
                        ticketType,
                        date,
                        status,
                        state,
                        day,
                        reentrada,
                        saidaSemEntrada,
                        capacity,
                        presence,
                        area,
                      };
}

// ---- The oracle: what each scan must come to, in plain words. ----

/** The ticket is paid for. */
const paid = (r: Row) => r.status === 'pago';
/** It holds a check-in not reversed (of today or of an earlier day). */
const holdsCheckin = (r: Row) => r.state === 'checked_in';
const checkedInToday = (r: Row) => r.state === 'checked_in' && r.day === 'today';
/** Open-dated tickets are valid any day; the others only on their date of use. */
const dated = (r: Row) => r.ticketType !== 'dayuse_sem_data';

/** Check-in (4.1): cancelled first, then already used, then the ticket's date. */
function expectedCheckin(r: Row): string {
  if (!paid(r)) return 'TICKET_CANCELLED';
  if (holdsCheckin(r)) return 'TICKET_ALREADY_USED';
  if (dated(r) && r.date === 'past') return 'TICKET_EXPIRED';
  if (dated(r) && r.date === 'future') return 'TICKET_NOT_VALID_YET';
  return 'granted';
}

/** Reversal (4.2): an active check-in, made today in the park's zone; status and dates do not matter. */
function expectedReversal(r: Row): string {
  if (r.state === 'reversed') return 'JA_ESTORNADO';
  if (r.state === 'never') return 'SEM_CHECKIN';
  if (r.day === 'earlier') return 'ESTORNO_NAO_PERMITIDO';
  return 'granted';
}

/**
 * Inside the door's area today: its presence row of today says so; with no row of today, a check-in
 * of today counts as being inside the park (check-ins made before movements were recorded).
 */
function expectedInside(r: Row): 'inside' | 'left' | 'never' {
  if (r.presence === 'inside_today') return 'inside';
  if (r.presence === 'left_today') return 'left';
  return r.area === PARK_AREA && checkedInToday(r) ? 'inside' : 'never';
}

/** Someone who would enter now does not fit: only an area with a capacity, and this one is full. */
const noRoom = (r: Row) => r.capacity === 'full';

/** An entry door (docs/lanes.md): a first entry is the check-in; a return depends on the policy. */
function expectedEntry(r: Row): string {
  if (!checkedInToday(r)) {
    // Only someone with no check-in at all would come in (be checked in) now.
    if (!holdsCheckin(r) && noRoom(r)) return 'CAPACITY_REACHED';
    const checkin = expectedCheckin(r);
    return checkin === 'granted' ? 'checkin' : checkin;
  }
  if (!paid(r)) return 'TICKET_CANCELLED';
  const where = expectedInside(r);
  if (where === 'inside') return 'TICKET_ALREADY_USED';
  if (where === 'left' && r.reentrada === 'nao') return 'TICKET_ALREADY_USED';
  if (noRoom(r)) return 'CAPACITY_REACHED';
  return where === 'left' ? 'reentrada' : 'entrada';
}

/** An exit door: out if inside; else let out or refused, as the lanes file says. Never a check-in. */
function expectedExit(r: Row): string {
  if (expectedInside(r) === 'inside') return 'exit';
  return r.saidaSemEntrada === 'negar' ? 'SEM_ENTRADA' : 'let-out';
}

// ---- The rules under test, fed the row's facts. ----

function facts(r: Row): { person: PersonFacts; presence: PresenceFacts | undefined; policy: MovePolicy } {
  const at = INSTANT[r.day];
  const person: PersonFacts = {
    qr_code: CODE,
    tipo_ingresso: r.ticketType,
    data_uso: USE_DATE[r.date],
    status: r.status,
    checkin_em: r.state === 'checked_in' ? at : null,
    estornado_em: r.state === 'reversed' ? at : null,
    estorno_operador: r.state === 'reversed' ? 'Supervisora' : null,
    estorno_dispositivo: r.state === 'reversed' ? 'console' : null,
  };
  const presence: PresenceFacts | undefined =
    r.presence === 'no_row'
      ? undefined
      : {
          local_date: r.presence === 'inside_yesterday' ? '2026-11-19' : TODAY,
          inside: r.presence === 'left_today' ? 0 : 1,
        };
  const policy: MovePolicy = {
    direction: 'entrada',
    area: r.area,
    reentrada: r.reentrada,
    saidaSemEntrada: r.saidaSemEntrada,
    capacity: r.capacity === 'none' ? null : 10,
  };
  return { person, presence, policy };
}

const occupancyOf = (r: Row) => () => (r.capacity === 'full' ? 10 : 3);

function actualOutcomes(r: Row) {
  const { person, presence, policy } = facts(r);
  const where = () => standing(cal, r.area, presence, person.checkin_em);
  const move = { cal, policy, area: r.area, occupancy: occupancyOf(r) };
  const entry = personEntry(move, person, CODE, where);
  const exit = personExit({ policy: { ...policy, direction: 'saida' }, area: r.area }, where(), CODE);
  return {
    checkin: personCheckin(person, TODAY, CODE)?.code ?? 'granted',
    reversal: personReversal(cal, person, CODE)?.code ?? 'granted',
    entry: entry.kind === 'refuse' ? entry.refusal.code : entry.kind === 'checkin' ? 'checkin' : entry.movement,
    exit: exit.kind === 'refuse' ? exit.refusal.code : exit.kind,
  };
}

const label = (r: Row) => Object.values(r).join(' / ');
const rows = [...crossProduct()];

describe('the pure check-in rules against the oracle', () => {
  it('covers the whole cross product', () => {
    expect(rows.length).toBe(4 * 3 * 3 * 3 * 2 * 2 * 2 * 3 * 4 * 2);
    expect(rows.length).toBeGreaterThanOrEqual(300);
  });

  it.each([
    ['check-in', 'checkin', expectedCheckin],
    ['reversal', 'reversal', expectedReversal],
    ['entry', 'entry', expectedEntry],
    ['exit', 'exit', expectedExit],
  ] as const)('%s: every row as the oracle says', (_name, key, oracle) => {
    const wrong = rows
      .map((r) => ({ row: label(r), expected: oracle(r), got: actualOutcomes(r)[key] }))
      .filter((c) => c.expected !== c.got);
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('sees every outcome of each scan somewhere in the table (no dimension is dead)', () => {
    const seen = { checkin: new Set(), reversal: new Set(), entry: new Set(), exit: new Set() };
    for (const r of rows) for (const [k, v] of Object.entries(actualOutcomes(r))) seen[k as keyof typeof seen].add(v);
    expect([...seen.checkin].sort()).toEqual(
      ['TICKET_ALREADY_USED', 'TICKET_CANCELLED', 'TICKET_EXPIRED', 'TICKET_NOT_VALID_YET', 'granted'].sort(),
    );
    expect([...seen.reversal].sort()).toEqual(
      ['ESTORNO_NAO_PERMITIDO', 'JA_ESTORNADO', 'SEM_CHECKIN', 'granted'].sort(),
    );
    expect([...seen.entry].sort()).toEqual(
      [
        'CAPACITY_REACHED',
        'TICKET_ALREADY_USED',
        'TICKET_CANCELLED',
        'TICKET_EXPIRED',
        'TICKET_NOT_VALID_YET',
        'checkin',
        'entrada',
        'reentrada',
      ].sort(),
    );
    expect([...seen.exit].sort()).toEqual(['SEM_ENTRADA', 'exit', 'let-out'].sort());
  });

  it('words the facts of a refusal with the scanned code and the park-local days', () => {
    const base = { ticketType: 'dayuse', status: 'pago', reentrada: 'nao', saidaSemEntrada: 'negar' } as const;
    const row = (over: Partial<Row>): Row => ({
      ...base,
      date: 'today',
      state: 'never',
      day: 'today',
      capacity: 'none',
      presence: 'no_row',
      area: PARK_AREA,
      ...over,
    });
    const f = (over: Partial<Row>) => facts(row(over));
    expect(personCheckin(f({ date: 'past' }).person, TODAY, CODE)).toEqual({
      code: 'TICKET_EXPIRED',
      details: { data_ingresso: '2026-11-19', data_atual: TODAY, qr_code: CODE },
    });
    // 23:00 of the 19th in São Paulo is the 20th in UTC: the park's day decides.
    expect(personReversal(cal, f({ state: 'checked_in', day: 'earlier' }).person, CODE)).toEqual({
      code: 'ESTORNO_NAO_PERMITIDO',
      details: { qr_code: CODE, checkin_em: INSTANT.earlier, data_checkin: '2026-11-19', data_atual: TODAY },
    });
    const full = row({ capacity: 'full', area: 'piscina' });
    const { person, policy } = facts(full);
    expect(
      personEntry({ cal, policy, area: 'piscina', occupancy: occupancyOf(full) }, person, CODE, () => 'never'),
    ).toEqual({
      kind: 'refuse',
      refusal: { code: 'CAPACITY_REACHED', details: { area: 'piscina', capacidade: 10, ocupacao: 10 } },
    });
    expect(personExit({ policy, area: 'piscina' }, 'never', CODE)).toEqual({
      kind: 'refuse',
      refusal: { code: 'SEM_ENTRADA', details: { qr_code: CODE, area: 'piscina' } },
    });
  });
});
