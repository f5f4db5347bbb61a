import { main } from '../../src/main';
import { type FakeIoOptions, fakeIo } from '../helpers/terminal';

/** Runs per property, fixed so CI time is predictable; FC_RUNS_SCALE (e.g. 10) multiplies them for a longer hunt. */
const SCALE = Number(process.env.FC_RUNS_SCALE) || 1;
export const RUNS = {
  pure: 1000 * SCALE,
  inProcess: 300 * SCALE,
} as const;

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The whole of main() in this process: real argv parsing, context, HTTP core and renderers, fake streams. */
export async function runMain(argv: string[], env: Record<string, string>, ioOptions: FakeIoOptions = {}): Promise<MainResult> {
  const io = fakeIo(ioOptions);
  const code = await main(argv, { io, env, signal: new AbortController().signal });
  return { code, stdout: io.stdout.text(), stderr: io.stderr.text() };
}
