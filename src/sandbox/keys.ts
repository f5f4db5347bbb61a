/** One key per plan of the specification: public on purpose (`petctl sandbox` prints them). */
export interface SandboxKey {
  readonly key: string;
  readonly plan: 'free' | 'pro' | 'business' | 'enterprise';
  readonly perMinute: number;
  readonly perDay: number;
}

/** Enterprise quotas are "custom" in the specification; these are the sandbox's defaults. */
export const ENTERPRISE_DEFAULT_PER_MINUTE = 5_000;
export const ENTERPRISE_DEFAULT_PER_DAY = 1_000_000;

export interface SandboxKeyOptions {
  enterprisePerMinute?: number;
  enterprisePerDay?: number;
}

/** The Enterprise quotas come checked: --enterprise-quota's parser takes whole numbers of at least 1. */
export function sandboxKeys(options: SandboxKeyOptions = {}): readonly SandboxKey[] {
  const perMinute = options.enterprisePerMinute ?? ENTERPRISE_DEFAULT_PER_MINUTE;
  const perDay = options.enterprisePerDay ?? ENTERPRISE_DEFAULT_PER_DAY;
  return [
    { key: 'sandbox-free', plan: 'free', perMinute: 60, perDay: 1_000 },
    { key: 'sandbox-pro', plan: 'pro', perMinute: 300, perDay: 10_000 },
    { key: 'sandbox-business', plan: 'business', perMinute: 1_000, perDay: 100_000 },
    { key: 'sandbox-enterprise', plan: 'enterprise', perMinute, perDay },
  ];
}
