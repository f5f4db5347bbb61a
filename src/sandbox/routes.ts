/** The specification's base path: every operation is under it. */
export const BASE_PATH = '/v1';

/** The request target's path and query; an absolute-form target (`http://host/path`) is reduced to them. */
export function splitTarget(target: string): { pathname: string; search: string } {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    try {
      const url = new URL(target);
      pathAndQuery = url.pathname + url.search;
    } catch {
      return { pathname: target, search: '' };
    }
  }
  const queryAt = pathAndQuery.indexOf('?');
  return queryAt === -1 ? { pathname: pathAndQuery, search: '' } : { pathname: pathAndQuery.slice(0, queryAt), search: pathAndQuery.slice(queryAt + 1) };
}

/** The paths the sandbox serves, with the methods each allows (others: 405 with Allow) and a pet's id segment, still percent-encoded. */
export function matchRoute(pathname: string): { methods: readonly string[]; petIdSegment?: string } | undefined {
  if (pathname === `${BASE_PATH}/pets`) return { methods: ['GET', 'POST'] };
  const petIdSegment = /^\/v1\/pets\/([^/]+)$/.exec(pathname)?.[1];
  return petIdSegment === undefined ? undefined : { methods: ['GET'], petIdSegment };
}
