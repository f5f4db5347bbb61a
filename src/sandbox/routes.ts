/** The specification's base path: every operation is under it. */
export const BASE_PATH = '/v1';

/** The paths the sandbox serves, and the methods each allows (others: 405 with Allow). */
export type Route = { name: 'pets' } | { name: 'pet'; petIdSegment: string };

export const ALLOWED_METHODS: Record<Route['name'], readonly string[]> = {
  pets: ['GET', 'POST'],
  pet: ['GET'],
};

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
  return queryAt === -1
    ? { pathname: pathAndQuery, search: '' }
    : { pathname: pathAndQuery.slice(0, queryAt), search: pathAndQuery.slice(queryAt + 1) };
}

export function matchRoute(pathname: string): Route | undefined {
  if (pathname === `${BASE_PATH}/pets`) return { name: 'pets' };
  const match = /^\/v1\/pets\/([^/]+)$/.exec(pathname);
  return match?.[1] === undefined ? undefined : { name: 'pet', petIdSegment: match[1] };
}
