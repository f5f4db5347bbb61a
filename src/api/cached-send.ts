import { parseSuccessBody } from './answer';
import type { CacheAccess } from './cache';
import { type ApiRequest, type ApiResponse, requestUrl } from './request';

/** The response cache before the send loop: a GET with --cache may be answered from it; a write clears it once answered. */

/** Methods that change nothing (RFC 9110, 9.2.1): every other one clears the target's cached answers. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function sendThroughCache(
  request: ApiRequest,
  cache: CacheAccess,
  baseUrl: string,
  send: (request: ApiRequest) => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const method = request.method.toUpperCase();
  if (!SAFE_METHODS.has(method)) {
    try {
      return await send(request);
    } finally {
      await cache.written();
    }
  }
  if (request.cacheForMs === undefined || method !== 'GET') return send(request);
  const url = requestUrl(baseUrl, request);
  const result = await (await cache.open()).answer({ method, url, headers: request.headers }, request.cacheForMs, () => send(request), request.cacheIf);
  if (!('ageMs' in result)) return result;
  // Nothing was sent, so the rate-limit gate is neither asked nor told: the stored limits are history.
  request.hooks?.onAnswer?.(result.answer);
  cache.served(result.ageMs, url);
  const body = request.rawResponse ? undefined : parseSuccessBody(result.answer, method, url);
  return { ...result.answer, url, body, rate: {} };
}
