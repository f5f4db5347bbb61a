import { spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { BIN, NODE, cleanEnv } from './cli';

export interface SandboxProcess {
  /** Its first stdout line. */
  baseUrl: string;
  /** Its stderr so far: the notice, then one line per request. */
  stderr(): string;
  /** Ctrl-C; resolves once it has ended. */
  stop(): Promise<void>;
}

/** `petctl sandbox <args>` (the built binary) for the rest of the running test; resolves once it prints its base URL. */
export function startSandboxProcess(args: string[]): Promise<SandboxProcess> {
  const child = spawn(NODE, [BIN, 'sandbox', ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    void exited.then(() => reject(new Error(`petctl sandbox exited: ${stderr}`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) {
        resolve({
          baseUrl: stdout.slice(0, stdout.indexOf('\n')),
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      }
    });
  });
}
