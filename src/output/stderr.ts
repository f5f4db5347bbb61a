import type { GlobalOptions } from '../globals';
import type { IO, Terminal } from '../terminal';
import { formatWait } from './time';

/** The ways onto stderr, above a countdown or a progress line (drawn again below), made safe by the status line.
 * --quiet silences all but `line` (what -v asked for, invalid rows). `announceWait`: one line `petctl: <why>` for a
 * wait of a second or more, shared by the waits for one moment; `wait`: a countdown on a TTY, else that one line. */
export type StderrLines = ReturnType<typeof stderrLines>;

/** What output/ takes of the Context (context.ts, which is one), so that output/ does not depend on it. */
export interface OutputHost extends StderrLines {
  io: Pick<IO, 'stdout'>;
  terminal: Terminal;
  globals: Pick<GlobalOptions, 'output' | 'query' | 'quiet' | 'verbose'>;
  now(): number;
}

type StderrClock = { monotonic(): number; sleep(ms: number): Promise<void> };

export function stderrLines(terminal: Terminal, quiet: boolean, { monotonic, sleep }: StderrClock) {
  const { status } = terminal;
  /** The ends of the waits announced and not yet over. */
  let announced: number[] = [];
  const lines = {
    line: (message: string) => status.print(message),
    notice(message: string) {
      if (!quiet) status.print(message);
    },
    warn(message: string) {
      if (!quiet) status.print(`warning: ${message}`);
    },
    announceWait(ms: number, why: string) {
      if (quiet || ms < 1000) return;
      const at = monotonic();
      const until = at + ms;
      announced = announced.filter((end) => end > at);
      if (announced.some((end) => Math.abs(end - until) < 1000)) return;
      announced.push(until);
      status.print(`petctl: ${why}`);
    },
    async wait(ms: number, why: string): Promise<void> {
      if (quiet || ms < 1000) return sleep(ms);
      if (!status.live) {
        lines.announceWait(ms, why);
        return sleep(ms);
      }
      const until = monotonic() + ms;
      try {
        for (let left = ms; left > 0; left = until - monotonic()) {
          status.show(`petctl: ${why} (${formatWait(left)} left)`);
          // Sleep to the next whole second so the count shown stays exact.
          await sleep(left % 1000 || 1000);
        }
      } finally {
        status.clear();
      }
    },
  };
  return lines;
}
