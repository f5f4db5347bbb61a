import { isIP } from 'node:net';
import { UsageError } from '../errors';

/** The rules a URL petctl is given keeps, each caller naming its differences; the raw value is never echoed (it may
 * hold credentials, or be a key pasted in the wrong place). `example`: a refusal's hint; `schemeWords`: `https://`;
 * `carriesKey`: the API key goes with it (http: only to loopback, no user or password); `path`: its rule, refusal. */
interface UrlRules {
  label: string;
  example: string;
  schemes: readonly string[];
  schemeWords: string;
  carriesKey?: boolean;
  path?: [RegExp, string];
}

export function checkUrl(raw: string, rules: UrlRules): URL {
  const { label, example } = rules;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${label} is not an absolute URL`, example);
  }
  if (!rules.schemes.includes(url.protocol)) {
    throw new UsageError(`${label} must use ${rules.schemeWords} (got ${url.protocol}//)`, example);
  }
  if (url.hostname === '') throw new UsageError(`${label} has no host`, example);
  if (rules.carriesKey && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `${label} uses http:// for ${url.hostname}: the API key would travel in clear text; use https://`,
      'http:// is accepted only for loopback hosts (localhost, 127.0.0.0/8, [::1])',
    );
  }
  if (rules.carriesKey && (url.username !== '' || url.password !== '')) {
    throw new UsageError(`${label} must not contain a user name or password`, 'petctl sends the API key itself; store it with petctl auth login');
  }
  // An empty `?` or `#` leaves search and hash empty, but still shows in href.
  if (/[?#]/.test(url.href)) {
    throw new UsageError(`${label} must not contain a query (?...) or a fragment (#...)`, example);
  }
  if (rules.path && !rules.path[0].test(url.pathname)) throw new UsageError(`${label} ${rules.path[1]}`, example);
  return url;
}

/** Names that merely resolve to loopback (`foo.localhost`, nip.io) may resolve otherwise on connecting: not these. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  // The URL parser writes an IPv6 address one way (`0:0::1` → `[::1]`); it refuses a zone id (`%eth0`).
  return family === 6 && URL.canParse(`http://[${host}]/`) && new URL(`http://[${host}]/`).hostname === '[::1]';
}

/** Normalised: scheme and host lower-cased, default port and trailing slash dropped. */
export function validateBaseUrl(raw: string, label = 'base URL'): string {
  const url = checkUrl(raw, {
    label,
    example: 'expected e.g. https://api.example.org/v1',
    schemes: ['https:', 'http:'],
    schemeWords: 'https://',
    carriesKey: true,
  });
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** With the specification's `/v1` added, or undefined when it ends in a version already. */
export function withVersionSegment(baseUrl: string): string | undefined {
  return /\/v\d+$/i.test(new URL(baseUrl).pathname) ? undefined : `${baseUrl}/v1`;
}
