/** Where `petctl sandbox` listens unless told otherwise: here, so the session can name it in a hint without loading the sandbox. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;
/** The most animals a sandbox keeps (`--max-animals`): its keys are public, so this bounds its disk and memory. */
export const DEFAULT_MAX_ANIMALS = 100_000;
export const BASE_PATH = '/v1';
/** The shortest rate-limit "minute" the test hooks take (`--minute-ms`, PETCTL_SANDBOX_MINUTE_MS), and its rule. */
export const MIN_MINUTE_MS = 100;
export const MINUTE_MS_RULE = `must be whole milliseconds, ${MIN_MINUTE_MS} or more`;
