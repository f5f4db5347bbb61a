import { isIP } from 'node:net';
import { UsageError } from '../errors';
import { checkUrl } from './url-check';

const EXAMPLE = 'expected e.g. redis://host:6379/0 or rediss://host:6380/0 (the password: PETCTL_STATE_PASSWORD or --state-password-stdin)';

/** The Redis state store's URL; its password is never printed. A user name alone (`redis://s3cret@host`) is the
 * password, as redis-cli and ioredis read it (Redis before 6 has no user names). */
export interface StateStoreAddress {
  tls: boolean;
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
}

function parse(raw: string, label: string): URL {
  const url = checkUrl(raw, {
    label,
    example: EXAMPLE,
    schemes: ['redis:', 'rediss:'],
    schemeWords: 'redis:// or rediss://',
    path: [/^\/?(\d{1,5})?$/, 'may only name a database number after the host (e.g. /0)'],
  });
  // The URL parser keeps a stray `%` as it is: decoding the password would fail later, far from here. The
  // `:` between the two ends an escape cut short, so this fails exactly when either one alone would.
  try {
    decodeURIComponent(`${url.username}:${url.password}`);
  } catch {
    throw new UsageError(`${label} has a user name or password that is not valid percent-encoding`, 'write % as %25, or give the password apart: PETCTL_STATE_PASSWORD or --state-password-stdin');
  }
  return url;
}

/** As given, the scheme lower-cased and a trailing `/` dropped. */
export function validateStateUrl(raw: string, label = 'the state URL'): string {
  return parse(raw, label).href.replace(/\/$/, '');
}

export function stateStoreAddress(stateUrl: string): StateStoreAddress {
  const url = parse(stateUrl, 'the state URL');
  const decode = (value: string) => (value === '' ? undefined : decodeURIComponent(value));
  const onlyUser = url.password === '' && url.username !== '';
  return {
    tls: url.protocol === 'rediss:',
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    db: Number(url.pathname.slice(1) || 0),
    username: onlyUser ? undefined : decode(url.username),
    password: decode(onlyUser ? url.username : url.password),
  };
}

/** For `profile show`/`list`: the URL with its password, in either slot, replaced by `****`. */
export function maskStateUrl(stateUrl: string): string {
  const url = new URL(stateUrl);
  if (url.password !== '') url.password = '****';
  else if (url.username !== '') url.username = '****';
  return url.href.replace(/\/$/, '');
}

/** For warnings and -v traces: scheme, host, port and database; no user name, no password. */
export function describeStateUrl(stateUrl: string): string {
  const { tls, host, port, db } = stateStoreAddress(stateUrl);
  return `${tls ? 'rediss' : 'redis'}://${isIP(host) === 6 ? `[${host}]` : host}:${port}/${db}`;
}
