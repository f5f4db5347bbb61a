/**
 * The one same-origin rule: the API key goes only to the base URL's origin
 * (scheme, host and port), never to wherever a link or an argument points.
 * Each caller decides what a refusal means for it (a usage error for
 * `petctl api <url>`, an invalid answer for a next-page link).
 */
export function isSameOrigin(url: string | URL, baseUrl: string | URL): boolean {
  return new URL(url).origin === new URL(baseUrl).origin;
}
