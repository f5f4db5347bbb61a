import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { type TestContext, onTestFinished } from 'vitest';

import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server';
import { parseJson } from '../../src/schemas/json';

export const FREE = 'sandbox-free';
export const PRO = 'sandbox-pro';
export const BUSINESS = 'sandbox-business';
export const ENTERPRISE = 'sandbox-enterprise';

/** `text` is the raw body, to check int64 digits exactly; `body` is it parsed with parseJson. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

export interface CallOptions {
  /** Sent as a bearer token; null sends no Authorization header. */
  key?: string | null;
  method?: string;
  headers?: Record<string, string>;
  /** A string, Buffer or stream is sent as is; anything else as JSON. */
  body?: unknown;
}

/** One HTTP request to the sandbox over loopback; `target` is relative to the base URL (e.g. "/pets?limit=5"). */
export async function call(baseUrl: string, target: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? FREE : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body = options.body as string | Buffer | Readable | undefined;
  if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body) && !('pipe' in body)) {
    body = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${baseUrl}${target}`, {
    method: (options.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET',
    headers,
    body,
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : parseJson(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: flat, text, body: parsed };
}

/** A sandbox on a free loopback port, closed when the test ends (a concurrent test passes its own context). */
export async function start(
  options: Omit<SandboxOptions, 'port'> = {},
  t: Pick<TestContext, 'onTestFinished'> = { onTestFinished },
): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  t.onTestFinished(() => sandbox.close());
  return sandbox;
}

/** A POST of a raw JSON text (to send numbers JSON.stringify cannot write). */
export function postJson(baseUrl: string, text: string, key: string = FREE): Promise<Reply> {
  return call(baseUrl, '/pets', { key, body: text, headers: { 'content-type': 'application/json' } });
}

/** A clock the test moves by hand. */
export function fakeClock(start = Date.UTC(2026, 0, 15, 10, 0, 30, 500)) {
  let current = start;
  return { now: () => current, advance: (ms: number) => void (current += ms) };
}

/** Raw bytes on a new connection, and what comes back until it closes or `waitMs` passes; `afterContinue` after 100. */
export function rawExchange(
  port: number,
  text: string,
  options: { afterContinue?: string; waitMs?: number } = {},
): Promise<{ response: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let afterContinue = options.afterContinue;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ response, closedByServer: false });
    }, options.waitMs ?? 2000);
    socket.on('data', (chunk) => {
      response += chunk.toString('utf8');
      if (afterContinue !== undefined && response.includes('100 Continue\r\n\r\n')) {
        socket.write(afterContinue);
        afterContinue = undefined;
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ response, closedByServer: true });
    });
    socket.on('error', () => {});
    socket.write(text);
  });
}
