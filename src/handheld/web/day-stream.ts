import type { DayData } from '../handheld.schemas.js';

// The day data's answer read as it arrives. The box ends each slice's rows of a kind with a newline
// (src/handheld/day-data.ts, dayDataParts), so each line is parsed while the rest is on its way, and the text goes on
// to be stored as it comes: a 50,000-person day is indexed and written by the time its last byte comes, instead of
// after it. An answer without those lines (an error, a box of an older version) is kept and parsed whole at the end.

export type DayKind = 'pessoas' | 'pedidos' | 'adicionais' | 'lotes';
export type DayHead = Pick<DayData, 'data_local' | 'gerado_em' | 'cursor' | 'completo'>;

/** Where the answer goes as it is read: its rows, a line at a time, and its text, in order. */
export interface DaySink {
  rows(head: DayHead, kind: DayKind, rows: unknown[]): void;
  text(head: DayHead, text: string): void;
}

const HEAD = /^\{"success":true,"data":(\{.*),"pessoas":\[$/;
const SECTION = /^\],"(pessoas|pedidos|adicionais|lotes)":\[$/;
const END = ']}}';

/**
 * Fed the answer's text in pieces. `end` gives the day's head, when the answer came in lines (its text went to the
 * sink); otherwise the whole text, to be parsed.
 */
export function createDayReader(sink: DaySink) {
  let early: string[] = [];
  let pending: string[] = [];
  let head: DayHead | null = null;
  let kind: DayKind = 'pessoas';
  let lines = 0;
  let ended = false;

  const line = (text: string) => {
    if (lines++ === 0) {
      const m = HEAD.exec(text);
      if (m) head = JSON.parse(`${m[1]}}`) as DayHead;
      return;
    }
    if (!head) return;
    if (ended) throw new Error('resposta do box com texto depois do fim');
    const section = SECTION.exec(text);
    if (section) kind = section[1] as DayKind;
    else if (text === END) ended = true;
    else sink.rows(head, kind, JSON.parse(`[${text.startsWith(',') ? text.slice(1) : text}]`) as unknown[]);
  };

  return {
    push(chunk: string): void {
      if (head) sink.text(head, chunk);
      else early.push(chunk);
      let from = 0;
      for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
        pending.push(chunk.slice(from, nl));
        const before = head;
        line(pending.join(''));
        pending = [];
        from = nl + 1;
        // The head's line just read: what came before goes to the sink, this chunk with it.
        if (!before && head) {
          for (const t of early) sink.text(head, t);
          early = [];
        }
      }
      if (from < chunk.length) pending.push(chunk.slice(from));
    },

    end(): { head: DayHead } | { head: null; text: string } {
      if (pending.length > 0) line(pending.join(''));
      pending = [];
      if (!head) return { head: null, text: early.join('') };
      if (!ended) throw new Error('resposta do box incompleta');
      return { head };
    },
  };
}

/** Reads a response's body through a day reader, decoding UTF-8 as it comes. */
export async function readDay(res: Response, sink: DaySink) {
  const reader = createDayReader(sink);
  if (!res.body) reader.push(await res.text());
  else {
    const decoder = new TextDecoder();
    const body = res.body.getReader();
    for (;;) {
      const r = await body.read();
      if (r.done) break;
      reader.push(decoder.decode(r.value, { stream: true }));
    }
    reader.push(decoder.decode());
  }
  return reader.end();
}
