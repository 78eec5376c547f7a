import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import Parser from 'stream-json/Parser.js';

export interface SyntaxPosition {
  /** 0-based byte offset of the first character the parser could not accept. */
  byte: number;
  line: number;
  /** 1-based, in characters (UTF-16 units, as editors count). */
  column: number;
}

export const isSyntaxError = (error: unknown): error is Error =>
  error instanceof Error && /^Parser (cannot parse|has expected)/.test(error.message);

const MESSAGES: [RegExp, string][] = [
  [/digit|of a number/, 'número inválido'],
  [/expected a value|has expected a value/, 'esperava um valor'],
  [/expected an object key/, 'esperava o nome de um campo entre aspas'],
  [/expected ','/, "esperava ','"],
  [/expected ':'/, "esperava ':'"],
  [/expected '([}\]])'/, "esperava '$1'"],
  [/unexpected token '([}\]])'/, "'$1' inesperado"],
  [/escaped characters/, 'sequência de escape inválida em um texto'],
  [/expected a string value/, 'texto sem aspas de fechamento'],
  [/unexpected characters/, 'caracteres inesperados'],
];

/** The parser's complaint in Portuguese. */
export function describeSyntaxError(message: string): string {
  for (const [pattern, text] of MESSAGES) {
    const m = pattern.exec(message);
    if (m) return text.replace('$1', m[1] ?? '');
  }
  return message;
}

/**
 * Where a JSON syntax error is. The streaming parser reports only what it expected, so this runs the
 * parser again: whole chunks up to the one that fails, then that chunk one character at a time.
 * Only called after a failure, so the second read costs nothing on good files.
 */
export async function locateSyntaxError(file: string): Promise<SyntaxPosition | null> {
  const failing = await feed(file, Number.POSITIVE_INFINITY);
  if (!failing) return null;
  return (await feed(file, failing.chunkStart))?.position ?? null;
}

const CHUNK = 64 * 1024;

/** Feeds the file to a fresh parser, character by character from byte `fineFrom` on. */
async function feed(file: string, fineFrom: number): Promise<{ chunkStart: number; position: SyntaxPosition } | null> {
  const parser = new Parser({ packValues: true, streamValues: false });
  parser.resume();
  let failed = false;
  parser.on('error', () => {
    failed = true;
  });
  const write = (s: string) =>
    new Promise<boolean>((resolve) => parser.write(s, (err) => resolve(Boolean(err) || failed)));
  const decoder = new StringDecoder('utf8');
  let byte = 0;
  let char = 0;
  let line = 1;
  let lineStart = 0;
  const position = () => ({ byte, line, column: char - lineStart + 1 });
  const advance = (s: string) => {
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
      line++;
      lineStart = char + i + 1;
    }
    byte += Buffer.byteLength(s);
    char += s.length;
  };

  const stream = fs.createReadStream(file, { highWaterMark: CHUNK });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      // Offsets count the bytes of decoded text, so both runs see the same chunk boundaries.
      const chunkStart = byte;
      const text = decoder.write(chunk);
      if (byte < fineFrom) {
        if (await write(text)) return { chunkStart, position: position() };
        advance(text);
        continue;
      }
      for (const ch of text) {
        if (await write(ch)) return { chunkStart, position: position() };
        advance(ch);
      }
    }
    const ended = await new Promise<boolean>((resolve) => {
      parser.once('error', () => resolve(true));
      parser.end(() => resolve(failed));
    });
    return ended ? { chunkStart: byte, position: position() } : null;
  } finally {
    stream.destroy();
    parser.destroy();
  }
}
