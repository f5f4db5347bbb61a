/**
 * Where `petctl sandbox` listens unless told otherwise. A module of its own so
 * the session (app/session.ts) can name the sandbox in a "nothing is
 * listening" hint without loading the sandbox itself.
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;
