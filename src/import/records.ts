import fs from 'node:fs';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import Assembler from 'stream-json/Assembler.js';
import Parser from 'stream-json/Parser.js';

export const KINDS = ['combos', 'disponibilidade', 'clientes', 'pedidos'] as const;
export type Kind = (typeof KINDS)[number];
const isKind = (k: string): k is Kind => (KINDS as readonly string[]).includes(k);

/** One element of one of the top-level arrays, assembled on its own: the file is never held whole. */
export interface RawRecord {
  type: 'record';
  kind: Kind;
  index: number;
  value: unknown;
}
/** Something wrong with the file's outline (not with a record): an unknown key, a key that is not a list. */
export interface OutlineIssue {
  type: 'issue';
  message: string;
}
/** A top-level key began: lets the caller learn the order of the lists in the file. */
export interface KeyStart {
  type: 'key';
  kind: Kind;
}
export type FileItem = RawRecord | OutlineIssue | KeyStart;

export class ImportFileError extends Error {}

interface Token {
  name: string;
  value?: string;
}

const OPEN = new Set(['startObject', 'startArray']);
const CLOSE = new Set(['endObject', 'endArray']);

/**
 * Turns parser tokens into records of the four lists. `only` limits which lists are assembled; the
 * others are skipped token by token, which costs far less than building their objects.
 */
class RecordWalker extends Transform {
  private depth = 0;
  private key: string | null = null;
  private kind: Kind | null = null;
  private index = 0;
  private skipFrom = -1;
  private asm: Assembler | null = null;
  private seenRoot = false;

  constructor(private readonly only: ReadonlySet<Kind> | undefined) {
    super({ writableObjectMode: true, readableObjectMode: true });
  }

  override _transform(token: Token, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.step(token);
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    done(this.seenRoot ? null : new ImportFileError('o arquivo está vazio: esperado um objeto JSON'));
  }

  private step(t: Token): void {
    const opens = OPEN.has(t.name);
    const closes = CLOSE.has(t.name);
    if (this.depth === 0) {
      if (t.name !== 'startObject')
        throw new ImportFileError(
          'o arquivo deve ser um objeto JSON: { "pedidos": [...], "combos": [...], "disponibilidade": [...], "clientes": [...] }',
        );
      this.seenRoot = true;
      this.depth = 1;
      return;
    }
    if (this.skipFrom >= 0) {
      // Inside a value we do not want: only follow the nesting until it closes.
      if (opens) this.depth++;
      else if (closes) this.depth--;
      if (this.depth <= this.skipFrom) this.skipFrom = -1;
      return;
    }
    if (this.depth === 1) return this.topLevel(t, opens, closes);
    if (this.depth === 2 && this.kind) return this.element(t, opens, closes);
    // depth >= 3: inside an element being assembled.
    this.asm!.consume(t);
    if (opens) this.depth++;
    else if (closes) this.depth--;
    if (this.depth === 2) this.emitRecord(this.asm!.current);
  }

  private topLevel(t: Token, opens: boolean, closes: boolean): void {
    if (t.name === 'keyValue') {
      this.key = t.value ?? '';
      return;
    }
    if (closes) {
      this.depth = 0;
      return;
    }
    const key = this.key ?? '';
    if (!isKind(key)) {
      this.push({
        type: 'issue',
        message: `${key}: chave desconhecida (use ${KINDS.join(', ')})`,
      } satisfies OutlineIssue);
      this.skipValue(opens);
      return;
    }
    if (t.name !== 'startArray') {
      this.push({ type: 'issue', message: `${key}: deve ser uma lista` } satisfies OutlineIssue);
      this.skipValue(opens);
      return;
    }
    this.push({ type: 'key', kind: key } satisfies KeyStart);
    this.depth = 2;
    if (this.only && !this.only.has(key)) {
      this.skipFrom = 1;
      return;
    }
    this.kind = key;
    this.index = 0;
  }

  private element(t: Token, opens: boolean, closes: boolean): void {
    if (closes) {
      this.depth = 1;
      this.kind = null;
      return;
    }
    if (!opens) {
      const asm = new Assembler().consume(t);
      this.emitRecord(asm.current);
      return;
    }
    this.asm = new Assembler().consume(t);
    this.depth = 3;
  }

  private skipValue(opens: boolean): void {
    if (!opens) return;
    this.skipFrom = 1;
    this.depth = 2;
  }

  private emitRecord(value: unknown): void {
    this.push({ type: 'record', kind: this.kind!, index: this.index++, value } satisfies RawRecord);
    this.asm = null;
  }
}

export interface ReadOptions {
  only?: ReadonlySet<Kind>;
}

/**
 * Streams the import file and yields its records one by one. `stream.bytesRead` tells how far the
 * reading got, for progress. A syntax error rejects with the parser's message; see locateSyntaxError.
 */
export function openRecordStream(file: string, opts: ReadOptions = {}) {
  const source = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  const walker = new RecordWalker(opts.only);
  const items = pipeline(source, new Parser({ packValues: true, streamValues: false }), walker, () => {});
  return {
    get bytesRead() {
      return source.bytesRead;
    },
    items: items as AsyncIterable<FileItem>,
    close: () => walker.destroy(),
  };
}
