import { checkUrl } from './url-check';

/**
 * Checks a base URL given by --base-url, PETCTL_BASE_URL or `profile add` and
 * returns it normalised: scheme and host lower-cased, default port dropped, no
 * trailing slash (request paths such as `/pets` are appended to it).
 *
 * The API key travels in the Authorization header of every request, so plain
 * http:// is refused unless the host is loopback, where nothing leaves the
 * machine.
 */
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

/**
 * The base URL with the specification's version segment added, when it ends
 * in none (`https://api.example.org` → `https://api.example.org/v1`); undefined
 * when it already ends in one (`/v1`, `/v2`). Takes a normalised base URL.
 */
export function withVersionSegment(baseUrl: string): string | undefined {
  return /\/v\d+$/i.test(new URL(baseUrl).pathname) ? undefined : `${baseUrl}/v1`;
}
