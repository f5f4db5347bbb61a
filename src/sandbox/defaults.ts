/** Where `petctl sandbox` listens unless told otherwise: here, so the session can name it in a hint without loading the sandbox. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;
/** The most animals a sandbox keeps (`--max-animals`): its keys are public, so this bounds its disk and memory. */
export const DEFAULT_MAX_ANIMALS = 100_000;
export const BASE_PATH = '/v1';
