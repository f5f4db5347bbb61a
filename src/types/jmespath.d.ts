// jmespath 0.16.0 ships no types, and @types/jmespath declares search() only; compile() checks syntax without data.
declare module 'jmespath' {
  export function search(data: unknown, expression: string): unknown;
  export function compile(expression: string): unknown;
  const jmespath: { search: typeof search; compile: typeof compile };
  export default jmespath;
}
