import { UsageError } from '../errors';

const EXAMPLE = 'expected e.g. https://api.example.org/v1';

/**
 * Checks a base URL given by --base-url, PETCTL_BASE_URL or `profile add` and
 * returns it normalised: scheme and host lower-cased, default port dropped, no
 * trailing slash (request paths such as `/pets` are appended to it).
 *
 * The API key travels in the Authorization header of every request, so plain
 * http:// is refused unless the host is loopback, where nothing leaves the
 * machine. `label` names where the value came from in error messages. The raw
 * value is never echoed: it may hold credentials, or be a key pasted into the
 * wrong place.
 */
export function validateBaseUrl(raw: string, label = 'base URL'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${label} is not an absolute URL`, EXAMPLE);
  }

  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${label} must use https:// (got ${url.protocol}//)`, EXAMPLE);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `${label} uses http:// for ${url.hostname}: the API key would travel in clear text; use https://`,
      'http:// is accepted only for loopback hosts (localhost, 127.0.0.0/8, [::1])',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${label} must not contain a user name or password`, 'petctl sends the API key itself; store it with petctl auth login');
  }
  // An empty `?` or `#` leaves search/hash empty but still shows in href.
  if (url.search !== '' || url.hash !== '' || url.href.includes('?') || url.href.includes('#')) {
    throw new UsageError(`${label} must not contain a query (?...) or a fragment (#...)`, EXAMPLE);
  }

  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** A dotted-quad IPv4 address, each part 0-255 without leading zeros (node:net's isIPv4, which costs ~3 ms to load). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;

/**
 * True for hosts that can only be this machine: `localhost`, 127.0.0.0/8 and
 * ::1 (bracketed or not). Takes a URL's `hostname`, which WHATWG URL parsing
 * has already normalised (`127.1` → `127.0.0.1`, `[0::1]` → `[::1]`).
 * Other names that merely resolve to loopback (`foo.localhost`, nip.io) are
 * not trusted: resolution can differ between this check and the connection.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost') return true;
  if (IPV4.test(host)) return host.startsWith('127.');
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  // The URL parser accepts only a valid IPv6 address between brackets, and writes ::1 one way.
  try {
    return new URL(`http://[${bare}]/`).hostname === '[::1]';
  } catch {
    return false;
  }
}

/**
 * The base URL with the specification's version segment added, when it ends
 * in none (`https://api.example.org` → `https://api.example.org/v1`); undefined
 * when it already ends in one (`/v1`, `/v2`). Takes a normalised base URL.
 */
export function withVersionSegment(baseUrl: string): string | undefined {
  return /\/v\d+$/i.test(new URL(baseUrl).pathname) ? undefined : `${baseUrl}/v1`;
}
