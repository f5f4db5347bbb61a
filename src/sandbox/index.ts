/** The embedded Pet Adoption Service: what `petctl sandbox` and the built-in sandbox profile use. */
export {
  BASE_PATH,
  createSandboxServer,
  DEFAULT_HOST,
  DEFAULT_PORT,
  GET_PET_DEPRECATED_AT,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
  type SandboxServerOptions,
} from './server';
export {
  ENTERPRISE_DEFAULT_PER_DAY,
  ENTERPRISE_DEFAULT_PER_MINUTE,
  findSandboxKey,
  SANDBOX_KEYS,
  sandboxKeys,
  type SandboxKey,
  type SandboxKeyOptions,
  type SandboxPlan,
} from './keys';
export { MAX_BODY_BYTES } from './body';
export { SANDBOX_ERROR_CODES, type SandboxErrorCode } from './errors';
export { createMemoryStore, openFileStore, openStore, SandboxDataFileError, StoreBusyError, type PetStore } from './store';
export { DEFAULT_MINUTE_MS, RateLimiter, rateLimitPolicy, type RateLimitDecision, type RateLimitPolicy } from './rate-limiter';
