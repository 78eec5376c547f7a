import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Bytes } from '../lib/byte-slots.js';

/** Sends a JSON answer already in bytes; its slot is given back once the response is over. */
export function sendJsonBytes(reply: FastifyReply, { bytes, done }: Bytes) {
  reply.raw.once('close', done);
  // As a stream of one chunk: fastify serialises a buffer over shared memory as if it were an object.
  return reply.type('application/json; charset=utf-8').header('content-length', bytes.length).send(Readable.from([bytes]));
}
