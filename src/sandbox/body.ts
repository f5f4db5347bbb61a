import type { IncomingMessage, ServerResponse } from 'node:http';

import { parseJson } from '../schemas/json';
import { SandboxHttpError } from './errors';

/** Largest request body accepted: 64 KiB (65 536 bytes). A NewPet is well under 1 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A body declared or found to be too large is still read and thrown away up
 * to this many bytes before the 413 is sent, so a client that is still
 * uploading reads the 413 instead of a connection reset. Beyond it the 413 is
 * sent at once and the connection closed: input is never read without bound.
 */
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

/** Why a body was refused with 413; the response must close the connection. */
function tooLarge(): SandboxHttpError {
  return new SandboxHttpError('payload_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes (64 KiB)`, {
    Connection: 'close',
  });
}

/**
 * Reads a JSON body of at most MAX_BODY_BYTES and parses it with parseJson
 * (JSON.parse would round int64 values above 2^53).
 * `expectContinue`: the client sent `Expect: 100-continue` and waits for a go-ahead.
 */
export async function readJsonBody(
  request: IncomingMessage,
  response: ServerResponse,
  expectContinue: boolean,
): Promise<unknown> {
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

/**
 * Reads the request until its end or until `stopAfter` bytes, keeping only the
 * first `keep` bytes. `total` counts every byte seen.
 */
function readBytes(request: IncomingMessage, stopAfter: number, keep = 0): Promise<{ bytes: Buffer; total: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;
    const finish = (): void => {
      request.off('data', onData);
      request.off('end', finish);
      request.off('error', onError);
      request.off('close', onClose);
      resolve({ bytes: Buffer.concat(chunks, kept), total });
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (kept < keep && total <= keep) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      if (total > stopAfter) finish();
    };
    const onError = (error: Error): void => {
      request.off('data', onData);
      request.off('end', finish);
      request.off('close', onClose);
      reject(error);
    };
    // The client went away before the end of its body.
    const onClose = (): void => {
      if (!request.complete) onError(new Error('the client closed the connection before the end of the body'));
    };
    request.on('data', onData);
    request.on('end', finish);
    request.on('error', onError);
    request.on('close', onClose);
  });
}
