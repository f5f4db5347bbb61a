declare const __PETCTL_VERSION__: string | undefined;

/** Replaced at build time by esbuild's `define` (and by vitest's); read from package.json nowhere at run time. */
export const VERSION: string = typeof __PETCTL_VERSION__ === 'string' ? __PETCTL_VERSION__ : '0.0.0-dev';
