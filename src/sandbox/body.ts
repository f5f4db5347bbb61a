import type { IncomingMessage, ServerResponse } from 'node:http';

import { parseJson } from '../schemas/json';
import { SandboxHttpError } from './errors';

/** Largest request body accepted: 64 KiB (65 536 bytes). A NewPet is well under 1 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A body too large is still read and thrown away up to this (so a client still uploading reads the 413, not a reset); beyond it, never. */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;

const JSON_CONTENT_TYPE_HINT = 'Content-Type must be application/json (optionally with charset=utf-8)';

/** createPet takes `application/json`; a charset, if given, must be UTF-8 (RFC 8259 §8.1). */
export function checkJsonContentType(request: IncomingMessage): void {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new SandboxHttpError('unsupported_media_type', `Content-Encoding ${encoding} is not supported; send the body uncompressed`);
  }
  const header = request.headers['content-type'];
  if (header === undefined) throw new SandboxHttpError('unsupported_media_type', `${JSON_CONTENT_TYPE_HINT}; none was given`);
  const [mediaType = '', ...parameters] = header.split(';').map((part) => part.trim());
  if (mediaType.toLowerCase() !== 'application/json') {
    throw new SandboxHttpError('unsupported_media_type', `${JSON_CONTENT_TYPE_HINT}, got ${mediaType || '(empty)'}`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2).map((part) => part.trim());
    if (name.toLowerCase() !== 'charset') continue;
    const charset = value.replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw new SandboxHttpError('unsupported_media_type', `${JSON_CONTENT_TYPE_HINT}, got charset ${value}`);
    }
  }
}

function tooLarge(): SandboxHttpError {
  return new SandboxHttpError('payload_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes (64 KiB)`, { Connection: 'close' });
}

/** A JSON body of at most MAX_BODY_BYTES, int64s exact. `expectContinue`: the client waits for 100 Continue before sending it. */
export async function readJsonBody(request: IncomingMessage, response: ServerResponse, expectContinue: boolean): Promise<unknown> {
  const declared = request.headers['content-length'];
  const declaredBytes = declared === undefined ? undefined : Number(declared);
  if (declaredBytes !== undefined && declaredBytes > MAX_BODY_BYTES) {
    // A client waiting for 100 Continue has sent nothing yet: refuse at once.
    if (expectContinue || declaredBytes > DRAIN_LIMIT_BYTES) throw tooLarge();
    await readBytes(request, DRAIN_LIMIT_BYTES);
    throw tooLarge();
  }
  if (expectContinue) response.writeContinue();
  const { bytes, total } = await readBytes(request, DRAIN_LIMIT_BYTES, MAX_BODY_BYTES);
  if (total > MAX_BODY_BYTES) throw tooLarge();

  if (bytes.length === 0) throw new SandboxHttpError('invalid_body', 'a JSON body (NewPet) is required');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SandboxHttpError('invalid_json', 'the body is not valid UTF-8');
  }
  try {
    return parseJson(text);
  } catch (error) {
    throw new SandboxHttpError('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Reads the request until its end or past `stopAfter` bytes, keeping only the first `keep`; `total` counts every byte seen. */
function readBytes(request: IncomingMessage, stopAfter: number, keep = 0): Promise<{ bytes: Buffer; total: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const listeners = {
      data: (chunk: Buffer): void => {
        total += chunk.length;
        if (total <= keep) chunks.push(chunk);
        if (total > stopAfter) stop();
      },
      end: () => stop(),
      // The client went away before the end of its body.
      close: () => request.complete || stop(new Error('the client closed the connection before the end of the body')),
    };
    // Settled once: whatever comes after is ignored (an 'error' listener stays, so a late error is no crash).
    const stop = (error?: Error): void => {
      for (const [event, listener] of Object.entries(listeners)) request.off(event, listener);
      if (error) reject(error);
      else resolve({ bytes: Buffer.concat(chunks), total });
    };
    for (const [event, listener] of Object.entries(listeners)) request.on(event, listener);
    request.on('error', stop);
  });
}
