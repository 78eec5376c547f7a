import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Bytes } from '../lib/byte-slots.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a JSON answer already in bytes; its slot is given back once the response is over. */
export function sendJsonBytes(reply: FastifyReply, { bytes, done }: Bytes) {
  reply.raw.once('close', done);
  // As a stream of one chunk: fastify serialises a buffer over shared memory as if it were an object.
  return reply
    .type(JSON_TYPE)
    .header('content-length', bytes.length)
    .send(Readable.from([bytes]));
}
