// A double entry on the site (docs/site.md, "Conflitos do site"): a ticket let in while an earlier entry of it still
// stood. It is judged on the ticket's check-ins and reversals in the order they happened, never in the order a box
// learned them (a lost claim, a box stopped, a box deciding alone publishes later), so every box finds the same pairs.

export interface TicketMove {
  /** The event's id at this box. */
  id: number;
  action: 'checkin' | 'estorno';
  /** When it happened, ISO 8601. */
  at: string;
  /** Its id on the site: the same on every box, so ties are broken alike everywhere. */
  siteId: string | null;
  /** A compensation: the site id of the claim it undoes (nobody was let in by that claim). */
  undoes: string | null;
}

const rank = (m: TicketMove) => (m.action === 'checkin' ? 0 : 1);

function happenedBefore(a: TicketMove, b: TicketMove): number {
  const byTime = Date.parse(a.at) - Date.parse(b.at);
  if (byTime !== 0) return byTime;
  // A reversal at the instant of a check-in undoes it (a compensation carries its claim's time).
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a.siteId !== b.siteId) return (a.siteId ?? '') < (b.siteId ?? '') ? -1 : 1;
  return a.id - b.id;
}

/**
 * Each check-in made while an earlier one stood, as [that check-in's id, the standing one's id]. A claim undone by a
 * compensation, and the compensation itself, let nobody in and take no part.
 */
export function doubleEntries(moves: readonly TicketMove[]): [number, number][] {
  const undone = new Set(moves.flatMap((m) => (m.undoes ? [m.undoes] : [])));
  const kept = moves
    .filter((m) => m.undoes === null && !(m.siteId !== null && undone.has(m.siteId)))
    .sort(happenedBefore);
  const pairs: [number, number][] = [];
  let standing: TicketMove | undefined;
  for (const m of kept) {
    if (m.action === 'estorno') standing = undefined;
    else if (standing) pairs.push([m.id, standing.id]);
    else standing = m;
  }
  return pairs;
}
