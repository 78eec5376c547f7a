import type { LotRow, PersonRow } from '../handheld.schemas.js';

// What the result screen says of the tickets a scan is about, as the staff console does: the ticket type and the
// variation (e.g. "Passaporte Dia · Criança") and the day, never a person's data. So a child's ticket shown by an
// adult is seen at the gate, online and offline alike.

export interface TicketLine {
  texto: string;
  pessoas: number;
}

const dayOf = (row: PersonRow) =>
  row[4] === 'dayuse_sem_data' ? 'data aberta' : `${row[3].slice(8, 10)}/${row[3].slice(5, 7)}/${row[3].slice(0, 4)}`;

/** One line per kind and day, in the order the people come, with how many people of each. */
export function ticketLines(rows: PersonRow[], lotes: Map<string, LotRow>): TicketLine[] {
  const lines = new Map<string, TicketLine>();
  for (const row of rows) {
    const lot = lotes.get(row[2]);
    const texto = [...(lot ? [lot[1], lot[2]] : []), dayOf(row)].join(' · ');
    const line = lines.get(texto);
    if (line) line.pessoas += 1;
    else lines.set(texto, { texto, pessoas: 1 });
  }
  return [...lines.values()];
}
